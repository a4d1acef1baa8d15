import { describe, expect, it } from 'vitest';
import { DESCRIPTOR_BYTES, descriptorWords, hamming, hammingWithin } from './hamming';
import { seededRandom } from './random';

function randomRows(rows: number, rnd: () => number): Uint8Array {
  return Uint8Array.from({ length: rows * DESCRIPTOR_BYTES }, () => Math.floor(rnd() * 256));
}

describe('hammingWithin', () => {
  it('agrees with the byte-wise distance at every bound, for rows that are near copies and for unrelated ones', () => {
    const rnd = seededRandom(7);
    const a = randomRows(40, rnd);
    const b = randomRows(40, rnd);
    // Half of b's rows are copies of a's with a few bits flipped, the distances guided matching accepts.
    for (let i = 0; i < 20; i++) {
      b.set(a.subarray(i * DESCRIPTOR_BYTES, (i + 1) * DESCRIPTOR_BYTES), i * DESCRIPTOR_BYTES);
      for (let f = 0; f < i * 3; f++) b[i * DESCRIPTOR_BYTES + Math.floor(rnd() * DESCRIPTOR_BYTES)] ^= 1 << Math.floor(rnd() * 8);
    }
    const aw = descriptorWords(a);
    const bw = descriptorWords(b);
    for (let i = 0; i < 40; i++) {
      const d = hamming(a, i, b, i);
      for (const max of [0, 10, 48, d - 1, d, 128, 256]) expect(hammingWithin(aw, i, bw, i, max)).toBe(d <= max);
    }
  });

  it('reads rows that do not start on a 4-byte boundary (features decoded from a larger buffer)', () => {
    const rnd = seededRandom(3);
    const backing = new Uint8Array(3 + 2 * DESCRIPTOR_BYTES);
    backing.set(randomRows(2, rnd), 3);
    const rows = backing.subarray(3);
    const words = descriptorWords(rows);
    const d = hamming(rows, 0, rows, 1);
    expect(hammingWithin(words, 0, words, 1, d)).toBe(true);
    expect(hammingWithin(words, 0, words, 1, d - 1)).toBe(false);
  });
});
