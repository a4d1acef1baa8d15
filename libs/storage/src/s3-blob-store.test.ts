import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blobStoreContract } from './blob-store.contract';
import { openBlobStore } from './open-blob-store';
import { startS3Server } from './testing';

describe('S3 blob store against s3rver', () => {
  let server: Awaited<ReturnType<typeof startS3Server>>;
  beforeAll(async () => {
    server = await startS3Server();
  });
  afterAll(() => server.close());

  describe('contract', () => {
    blobStoreContract(async () => openBlobStore({ ...server, bucket: 'contract' }));
  });

  it('creates a missing bucket, and opens an existing one without error', async () => {
    const first = await openBlobStore({ ...server, bucket: 'fresh-bucket' });
    await first.put('k', Buffer.from('v'));
    const second = await openBlobStore({ ...server, bucket: 'fresh-bucket' });
    expect((await second.get('k'))?.toString()).toBe('v');
  });

  it('deletes more than one DeleteObjects batch worth of keys by prefix', async () => {
    const store = await openBlobStore({ ...server, bucket: 'many' });
    // Flat keys: s3rver's multi-delete prunes nested folders in parallel and trips over itself (500, then retried).
    const keys = Array.from({ length: 1005 }, (_, i) => `bulk-${i}`);
    for (let i = 0; i < keys.length; i += 50) await Promise.all(keys.slice(i, i + 50).map((k) => store.put(k, Buffer.from(k))));
    expect(await store.deletePrefix('bulk-')).toBe(1005);
    expect(await store.exists('bulk-1004')).toBe(false);
  });

  it('fails its ping when the server is unreachable', async () => {
    const other = await startS3Server();
    const store = await openBlobStore({ ...other, bucket: 'soon-gone' });
    await other.close();
    await expect(store.ping()).rejects.toThrow();
  });
});
