import { describe, expect, it } from 'vitest';
import { differenceHash, GlobalHashIndex, hashDistance } from './global-hash';
import { mirrorGray } from './features';
import { seededRandom } from './random';
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

  it('gives the bits that collections stored before (hashes are compared with stored ones, never recomputed)', async () => {
    // Values computed by the first implementation; 296 × 222 is divisible by neither side of the 9 × 8 grid.
    const scene = await syntheticImage(4);
    expect(differenceHash(toGray(await smoothWallpaper(1)))).toBe(0x186301c31c03000n);
    expect(differenceHash(toGray(scene))).toBe(0xa7cdde9fbbeb7fe6n);
    const small = await edit.scale(scene, 0.37);
    expect([small.width, small.height]).toEqual([296, 222]);
    expect(differenceHash(toGray(small))).toBe(0xafcddc9fbbeb7fe6n);
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
    expect(index.nearest(0n, 3, 200)).toEqual(expected);
    expect(index.nearest(BigInt(5) << 40n, 0, 200)).toEqual([{ key: 5, distance: 0 }]);
    expect(index.nearest(BigInt(7) << 40n, 0, 200)).toEqual([]);
    expect(index.nearest(0n, 3, 200).find((m) => m.key === 7)).toEqual({ key: 7, distance: 3 });
    index.remove(0);
    index.remove(12345);
    expect(index.nearest(0n, 0, 200)).toEqual([]);
    expect(index.size).toBe(199);
  });

  it('keeps only the nearest few asked for, of those the caller accepts, as a full scan sorted would give them', () => {
    const index = new GlobalHashIndex();
    const random = seededRandom(11);
    const centre = 0x0f0f_3c3c_5a5a_00ffn;
    // Hashes clustered around one layout, as photos of products on white are: most lie within the distance.
    const hashes: bigint[] = [];
    for (let key = 0; key < 5000; key++) {
      let hash = centre;
      for (let flips = Math.floor(random() * 20); flips > 0; flips--) hash ^= 1n << BigInt(Math.floor(random() * 64));
      hashes.push(hash);
      index.add(key, hash);
    }
    const odd = (key: number) => key % 2 === 1;
    const all = hashes
      .map((hash, key) => ({ key, distance: hashDistance(hash, centre) }))
      .filter((m) => m.distance <= 16)
      .sort((a, b) => a.distance - b.distance || a.key - b.key);
    expect(all.length).toBeGreaterThan(1000);
    expect(index.nearest(centre, 16, 8)).toEqual(all.slice(0, 8));
    expect(index.nearest(centre, 16, 8, odd)).toEqual(all.filter((m) => odd(m.key)).slice(0, 8));
    expect(index.nearest(centre, 2, 8, odd)).toEqual(all.filter((m) => m.distance <= 2 && odd(m.key)).slice(0, 8));
    expect(index.nearest(centre, 16, 0)).toEqual([]);
  });

  it('finds the images most alike in colour, at least as alike as asked, and only those the caller accepts', () => {
    const index = new GlobalHashIndex();
    // Key k holds the colour set of bins 0..k-1 (k bins): to bins 0..9 it is k / 10 alike for k ≤ 10, and for k > 10
    // 10 / (10 + (k - 10) / 2): an image's own colours count half as much against it as the query's it lacks.
    for (let key = 1; key <= 40; key++) index.add(key, 0n, (1n << BigInt(key)) - 1n);
    const tenBins = (1n << 10n) - 1n;
    expect(index.alikeInColour(tenBins, 3, 0)).toEqual([
      { key: 10, likeness: 1 },
      { key: 11, likeness: 10 / 10.5 },
      { key: 12, likeness: 10 / 11 },
    ]);
    // At least 0.8: 10, 11, 12, then 9 (0.9), 13 (0.87), 14 (0.83), and 8 and 15 tied at 0.8, by key.
    expect(index.alikeInColour(tenBins, 100, 0.8).map((m) => m.key)).toEqual([10, 11, 12, 9, 13, 14, 8, 15]);
    expect(index.alikeInColour(tenBins, 2, 0, (key) => key % 2 === 1).map((m) => m.key)).toEqual([11, 9]);
    expect(index.alikeInColour(tenBins, 0, 0)).toEqual([]);
    // Rows stored without a colour set (0) are alike nothing.
    index.add(10, 0n);
    expect(index.alikeInColour(tenBins, 1, 0)[0].key).toBe(11);
    index.remove(11);
    expect(index.alikeInColour(tenBins, 1, 0)[0].key).toBe(12);
  });

  it('reads back from its snapshot sections with hashes and colour sets', async () => {
    const index = new GlobalHashIndex();
    for (let key = 0; key < 50; key++) index.add(key * 3, BigInt(key) << 33n, (BigInt(key) << 40n) | 1n);
    index.remove(9);
    const bytes = Buffer.concat(index.toSections());
    let at = 0;
    const restored = await GlobalHashIndex.fromSections(async (n) => Uint8Array.from(bytes.subarray(at, (at += n))));
    expect(restored.size).toBe(49);
    expect(restored.nearest(5n << 33n, 0, 10)).toEqual([{ key: 15, distance: 0 }]);
    expect(restored.alikeInColour((7n << 40n) | 1n, 1, 1)).toEqual([{ key: 21, likeness: 1 }]);
    expect(restored.alikeInColour((3n << 40n) | 1n, 1, 1)).toEqual([]);
  });
});
