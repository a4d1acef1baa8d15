import { afterAll, describe, expect, it } from 'vitest';
import { extractFeatures } from '../features';
import { syntheticImage, toGray } from '../testing/synthetic-images';
import { featuresInSharedMemory, pixelsInSharedMemory, sharedCopy } from './shared-memory';
import { writeFirstByteTask } from './testing-tasks';
import { ThreadPool } from './thread-pool';

describe('shared memory for thread tasks', () => {
  const pool = new ThreadPool(1);
  afterAll(() => pool.close());

  it('crosses to a thread as the same memory, where a plain array crosses as a copy', async () => {
    const plain = new Uint8Array([1, 2, 3]);
    const shared = sharedCopy(plain);
    await pool.run(writeFirstByteTask, { bytes: plain, value: 9 });
    await pool.run(writeFirstByteTask, { bytes: shared, value: 9 });
    expect(plain[0]).toBe(1);
    expect(Array.from(shared)).toEqual([9, 2, 3]);
  }, 60_000);

  it('copies the values, once: an array already shared is returned as it is', () => {
    const values = Float32Array.from([0.5, -2, 1e9]);
    const copy = sharedCopy(values);
    expect(copy).toBeInstanceOf(Float32Array);
    expect(copy.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(Array.from(copy)).toEqual(Array.from(values));
    expect(sharedCopy(copy)).toBe(copy);
  });

  it('gives the pixels of an image held in a slice of a Buffer as a plain Uint8Array, the other fields kept', () => {
    const whole = Buffer.alloc(64, 7);
    const image = { data: whole.subarray(8, 20), width: 2, height: 2, scale: 0.5 };
    const shared = pixelsInSharedMemory(image);
    expect(shared.data.constructor).toBe(Uint8Array);
    expect(shared.data.buffer.byteLength).toBe(12);
    expect(Array.from(shared.data)).toEqual(Array.from(image.data));
    expect(shared).toMatchObject({ width: 2, height: 2, scale: 0.5 });
  });

  it('moves features and their mirror into shared memory with the same values', async () => {
    const features = await extractFeatures(toGray(await syntheticImage(4)), { includeMirror: true });
    const shared = featuresInSharedMemory(features);
    for (const f of [shared, shared.mirrored!]) for (const array of [f.xy, f.meta, f.descriptors]) expect(array.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(shared).toEqual(features);
  }, 60_000);
});
