import { describe, expect, it } from 'vitest';
import { cellRatioMatches } from './descriptor-matcher';
import { DESCRIPTOR_BYTES, hamming } from './hamming';
import { seededRandom } from './random';
import type { Features } from './types';

function features(descriptors: Uint8Array): Features {
  const count = descriptors.length / DESCRIPTOR_BYTES;
  return { width: 100, height: 100, count, xy: new Float32Array(count * 2), meta: new Float32Array(count * 4), descriptors };
}

function randomDescriptors(count: number, rnd: () => number): Uint8Array {
  return Uint8Array.from({ length: count * DESCRIPTOR_BYTES }, () => Math.floor(rnd() * 256));
}

/** Copy of descriptor `i` with `bits` distinct bits flipped. */
function perturbed(source: Uint8Array, i: number, bits: number, rnd: () => number): Uint8Array {
  const out = source.slice(i * DESCRIPTOR_BYTES, (i + 1) * DESCRIPTOR_BYTES);
  const flipped = new Set<number>();
  while (flipped.size < bits) flipped.add(Math.floor(rnd() * 256));
  for (const b of flipped) out[b >> 3] ^= 1 << (b & 7);
  return out;
}

const OPTIONS = { ratio: 0.8, loneMaxDistance: 64 };

describe('cell ratio matching', () => {
  const rnd = seededRandom(3);
  const target = randomDescriptors(200, rnd);
  const query = new Uint8Array(200 * DESCRIPTOR_BYTES);
  for (let i = 0; i < 200; i++) query.set(perturbed(target, 199 - i, 20, rnd), i * DESCRIPTOR_BYTES);

  it('finds every perturbed copy when all descriptors share one cell, as brute force would', () => {
    const pairs = cellRatioMatches(features(query), new Int32Array(200), features(target), new Int32Array(200), OPTIONS);
    expect(pairs).toHaveLength(200);
    for (const [q, t] of pairs) {
      expect(t).toBe(199 - q);
      expect(hamming(query, q, target, t)).toBe(20);
    }
  });

  it('compares a query descriptor only with its own cell', () => {
    // Query i is in cell i % 2; its true partner 199 - i is in cell (199 - i) % 2, the other cell: nothing may match.
    const cells = Int32Array.from({ length: 200 }, (_, i) => i % 2);
    expect(cellRatioMatches(features(query), cells, features(target), cells, OPTIONS)).toEqual([]);
    const partnerCells = Int32Array.from({ length: 200 }, (_, i) => (199 - i) % 2);
    expect(cellRatioMatches(features(query), partnerCells, features(target), cells, OPTIONS)).toHaveLength(200);
  });

  it('refuses ambiguous matches by the ratio test and far lone candidates by distance', () => {
    const twin = new Uint8Array(2 * DESCRIPTOR_BYTES);
    twin.set(perturbed(query, 0, 10, rnd), 0);
    twin.set(perturbed(query, 0, 11, rnd), DESCRIPTOR_BYTES);
    const one = features(query.slice(0, DESCRIPTOR_BYTES));
    expect(cellRatioMatches(one, new Int32Array(1), features(twin), new Int32Array(2), OPTIONS)).toEqual([]);
    const far = features(perturbed(query, 0, 90, rnd));
    const near = features(perturbed(query, 0, 30, rnd));
    expect(cellRatioMatches(one, new Int32Array(1), far, new Int32Array(1), OPTIONS)).toEqual([]);
    expect(cellRatioMatches(one, new Int32Array(1), near, new Int32Array(1), OPTIONS)).toEqual([[0, 0]]);
  });

  it('without the ratio test keeps the nearest of two look-alikes when it is close enough', () => {
    const twin = new Uint8Array(2 * DESCRIPTOR_BYTES);
    twin.set(perturbed(query, 0, 10, rnd), 0);
    twin.set(perturbed(query, 0, 11, rnd), DESCRIPTOR_BYTES);
    const one = features(query.slice(0, DESCRIPTOR_BYTES));
    expect(cellRatioMatches(one, new Int32Array(1), features(twin), new Int32Array(2), { ratio: null, loneMaxDistance: 40 })).toEqual([[0, 0]]);
    expect(cellRatioMatches(one, new Int32Array(1), features(twin), new Int32Array(2), { ratio: null, loneMaxDistance: 8 })).toEqual([]);
  });

  it('reads descriptors that start at an unaligned offset of a shared buffer', () => {
    const backing = new Uint8Array(1 + 200 * DESCRIPTOR_BYTES);
    backing.set(target, 1);
    const unaligned = features(backing.subarray(1));
    expect(cellRatioMatches(features(query), new Int32Array(200), unaligned, new Int32Array(200), OPTIONS)).toHaveLength(200);
  });
});
