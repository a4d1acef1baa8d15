import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blobStoreContract } from './blob-store.contract';
import { openBlobStore } from './open-blob-store';

describe('folder blob store', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'loupe-blobs-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  describe('contract', () => {
    blobStoreContract(async () => openBlobStore({ dataDir: dir }));
  });

  it('stores a key as nested folders under <dataDir>/blobs and leaves no temporary files', async () => {
    const store = await openBlobStore({ dataDir: dir });
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.put('nest/one/two', Buffer.alloc(10_000, i))));
    expect(await readdir(join(dir, 'blobs', 'nest', 'one'))).toEqual(['two']);
    expect(await readdir(join(dir, 'blobs.tmp'))).toEqual([]);
    expect((await store.get('nest/one/two'))?.length).toBe(10_000);
  });

  it('removes folders that a prefix delete leaves empty', async () => {
    const store = await openBlobStore({ dataDir: dir });
    await store.put('prune/a/b/c.bin', Buffer.from('c'));
    await store.deletePrefix('prune/');
    expect(await readdir(join(dir, 'blobs'))).not.toContain('prune');
  });

  it('fails its ping once the folder is gone', async () => {
    const own = await mkdtemp(join(tmpdir(), 'loupe-blobs-gone-'));
    const store = await openBlobStore({ dataDir: own });
    await rm(own, { recursive: true, force: true });
    await expect(store.ping()).rejects.toThrow();
  });
});
