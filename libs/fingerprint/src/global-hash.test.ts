import { describe, expect, it } from 'vitest';
import { differenceHash, GlobalHashIndex, hashDistance } from './global-hash';
import { mirrorGray } from './features';
import * as edit from './testing/edits';
import { smoothWallpaper, syntheticImage, toGray } from './testing/synthetic-images';

describe('whole-image difference hash', () => {
  it('keeps nearly every bit through rescaling, recompression, blur and brightness, and differs between images', async () => {
    const original = await smoothWallpaper(1);
    const base = differenceHash(toGray(original));
    for (const copy of [await edit.scale(original, 0.4), await edit.jpeg(original, 10), await edit.blur(original, 3), await edit.brighten(original, 0.7)]) {
      expect(hashDistance(differenceHash(toGray(copy)), base)).toBeLessThanOrEqual(4);
    }
    for (const other of [await smoothWallpaper(2), await smoothWallpaper(3), await syntheticImage(4)]) {
      expect(hashDistance(differenceHash(toGray(other)), base)).toBeGreaterThan(10);
    }
    // A mirrored copy is found through the hash of the mirrored query.
    const flipped = toGray(await edit.flip(original));
    expect(hashDistance(differenceHash(mirrorGray(flipped)), base)).toBeLessThanOrEqual(4);
  });

  it('measures the distance of 64-bit hashes, high bits included', () => {
    expect(hashDistance(0n, 0n)).toBe(0);
    expect(hashDistance(0n, (1n << 63n) | 1n)).toBe(2);
    expect(hashDistance(-1n, 0n)).toBe(64);
  });
});

describe('hash index', () => {
  it('finds the images within a distance, nearest first, and forgets removed or replaced ones', () => {
    const index = new GlobalHashIndex();
    for (let key = 0; key < 200; key++) index.add(key, BigInt(key) << 40n);
    index.add(7, 0b111n);
    expect(index.size).toBe(200);
    const bits = (n: number) => n.toString(2).split('').filter((b) => b === '1').length;
    // Key k holds k << 40 (distance = bits of k from 0), except 7, replaced by 0b111 (distance 3 as well).
    const expected = Array.from({ length: 200 }, (_, key) => ({ key, distance: bits(key) }))
      .filter((m) => m.distance <= 3)
      .sort((a, b) => a.distance - b.distance || a.key - b.key);
    expect(index.nearest(0n, 3)).toEqual(expected);
    expect(index.nearest(BigInt(5) << 40n, 0)).toEqual([{ key: 5, distance: 0 }]);
    expect(index.nearest(BigInt(7) << 40n, 0)).toEqual([]);
    expect(index.nearest(0n, 3).find((m) => m.key === 7)).toEqual({ key: 7, distance: 3 });
    index.remove(0);
    index.remove(12345);
    expect(index.nearest(0n, 0)).toEqual([]);
    expect(index.size).toBe(199);
  });
});
