import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BlobInfo, BlobStore } from './blob-store';
import { InvalidBlobKeyError } from './blob-key';

/** The behaviour both stores promise, run by each store's own test file against a real backend. */
export function blobStoreContract(open: () => Promise<BlobStore>, close: () => Promise<void> = async () => undefined): void {
  let store: BlobStore;
  beforeAll(async () => {
    store = await open();
  });
  afterAll(close);

  it('reads back exactly the bytes written under a nested key', async () => {
    const data = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 31) % 256));
    await store.put('acct/1/wine/labels/front.jpg', data, 'image/jpeg');
    expect(await store.get('acct/1/wine/labels/front.jpg')).toEqual(data);
    expect(await store.exists('acct/1/wine/labels/front.jpg')).toBe(true);
  });

  it('replaces a blob on a second put', async () => {
    await store.put('replace/me', Buffer.from('old'));
    await store.put('replace/me', Buffer.from('new'));
    expect((await store.get('replace/me'))?.toString()).toBe('new');
  });

  it('answers null and false for an absent key, and deletes absent keys without error', async () => {
    expect(await store.get('never/written')).toBeNull();
    expect(await store.exists('never/written')).toBe(false);
    await expect(store.delete('never/written')).resolves.toBeUndefined();
  });

  it('deletes one key and leaves its neighbours', async () => {
    await store.put('del/a', Buffer.from('a'));
    await store.put('del/b', Buffer.from('b'));
    await store.delete('del/a');
    expect(await store.exists('del/a')).toBe(false);
    expect(await store.exists('del/b')).toBe(true);
  });

  it('deletes by string prefix, counting what it deleted and sparing keys outside it', async () => {
    for (const key of ['col/7/x.png', 'col/7/sub/y.png', 'col/70/z.png', 'col/8/w.png']) await store.put(key, Buffer.from(key));
    expect(await store.deletePrefix('col/7/')).toBe(2);
    expect(await store.exists('col/70/z.png')).toBe(true);
    expect(await store.deletePrefix('col/7')).toBe(1);
    expect(await store.exists('col/8/w.png')).toBe(true);
    expect(await store.deletePrefix('col/9/')).toBe(0);
  });

  it('lists the keys under a string prefix with their sizes and modification times', async () => {
    const before = Date.now();
    for (const key of ['list/7/x.png', 'list/7/sub/y.png', 'list/70/z.png', 'list/8/w.png']) await store.put(key, Buffer.from(key));
    const listed = await collect(store.list('list/7'));
    expect(listed.map((b) => b.key).sort()).toEqual(['list/7/sub/y.png', 'list/7/x.png', 'list/70/z.png']);
    expect((await collect(store.list('list/7/'))).map((b) => b.key).sort()).toEqual(['list/7/sub/y.png', 'list/7/x.png']);
    const x = listed.find((b) => b.key === 'list/7/x.png')!;
    expect(x.size).toBe('list/7/x.png'.length);
    expect(x.modifiedAt).toBeInstanceOf(Date);
    // Stores keep seconds (S3) or better; a few seconds of slack covers that and a server clock slightly apart.
    expect(Math.abs(x.modifiedAt.getTime() - before)).toBeLessThan(5_000);
    expect(await collect(store.list('list/9/'))).toEqual([]);
    await expect(collect(store.list(''))).rejects.toBeInstanceOf(InvalidBlobKeyError);
  });

  it('rejects keys that could escape the store or are not plain relative paths', async () => {
    for (const key of ['../etc/passwd', 'a/../../b', '/abs/path', 'a//b', './a', 'a\\b', '']) {
      await expect(store.put(key, Buffer.from('x')), key).rejects.toBeInstanceOf(InvalidBlobKeyError);
    }
    await expect(store.get('a/../b')).rejects.toBeInstanceOf(InvalidBlobKeyError);
    await expect(store.deletePrefix('')).rejects.toBeInstanceOf(InvalidBlobKeyError);
  });

  it('answers a ping while reachable', async () => {
    await expect(store.ping()).resolves.toBeUndefined();
  });
}

async function collect(listing: AsyncIterable<BlobInfo>): Promise<BlobInfo[]> {
  const blobs: BlobInfo[] = [];
  for await (const blob of listing) blobs.push(blob);
  return blobs;
}
