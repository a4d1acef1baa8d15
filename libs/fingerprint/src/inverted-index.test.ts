import { describe, expect, it } from 'vitest';
import { InvertedIndex } from './inverted-index';
import { seededRandom } from './random';

const words = (...ws: number[]) => Uint32Array.from(ws);

function randomWords(rnd: () => number, n: number, vocabulary: number): Uint32Array {
  return Uint32Array.from({ length: n }, () => Math.floor(rnd() * vocabulary));
}

describe('inverted index', () => {
  it('ranks the image sharing the most rare words first', () => {
    const index = new InvertedIndex();
    index.add(1, words(1, 2, 3, 100));
    index.add(2, words(1, 2, 100));
    index.add(3, words(100, 4));
    const c = index.candidates(words(1, 2, 3, 100), 10);
    expect(c.map((x) => x.imageKey)).toEqual([1, 2, 3]);
    expect(c[0].votes).toBeGreaterThan(c[1].votes);
    expect(c[1].votes).toBeGreaterThan(c[2].votes);
  });

  it('weighs a word every image has less than a rarer one', () => {
    const index = new InvertedIndex();
    index.add(1, words(7, 8));
    index.add(2, words(7, 9));
    const [first, second] = index.candidates(words(7, 8), 10);
    expect(first.imageKey).toBe(1);
    expect(second.votes).toBeLessThan(first.votes / 1.5);
  });

  it('still offers the only image of a one-image collection', () => {
    const index = new InvertedIndex();
    index.add(42, words(1, 2, 3));
    expect(index.candidates(words(1, 2, 3), 10).map((c) => c.imageKey)).toEqual([42]);
  });

  it('counts a repeated word at most as often as it repeats in both images', () => {
    const index = new InvertedIndex();
    index.add(1, words(5, 5, 5));
    index.add(2, words(5, 6));
    index.add(3, words(9));
    const [first, second] = index.candidates(words(5, 5), 10);
    expect(first.imageKey).toBe(1);
    // Two shared occurrences against one, each image's votes divided by sqrt of its word count (3 and 2).
    expect(first.votes / second.votes).toBeCloseTo((2 / Math.sqrt(3)) / (1 / Math.sqrt(2)));
  });

  it('ranks a sparse image sharing all its words above a dense one sharing the same words', () => {
    const index = new InvertedIndex();
    index.add(1, words(...Array.from({ length: 200 }, (_, i) => 100 + i), 1, 2, 3));
    index.add(2, words(1, 2, 3));
    expect(index.candidates(words(1, 2, 3), 10).map((c) => c.imageKey)).toEqual([2, 1]);
  });

  it('forgets removed images and replaces re-added ones', () => {
    const index = new InvertedIndex();
    index.add(1, words(1, 2));
    index.add(2, words(3, 4));
    index.add(3, words(5));
    index.remove(1);
    expect(index.size).toBe(2);
    expect(index.candidates(words(1, 2), 10)).toEqual([]);
    index.add(2, words(1, 2));
    expect(index.size).toBe(2);
    expect(index.candidates(words(3, 4), 10)).toEqual([]);
    expect(index.candidates(words(1, 2), 10)[0].imageKey).toBe(2);
    index.remove(99);
    expect(index.size).toBe(2);
  });

  it('returns at most `limit` candidates, best first', () => {
    const index = new InvertedIndex();
    const rnd = seededRandom(3);
    for (let k = 0; k < 50; k++) index.add(k, randomWords(rnd, 200, 1000));
    const c = index.candidates(randomWords(rnd, 200, 1000), 5);
    expect(c).toHaveLength(5);
    for (let i = 1; i < c.length; i++) expect(c[i - 1].votes).toBeGreaterThanOrEqual(c[i].votes);
  });

  it('finds a noisy copy among 10 000 images with random words within 100 ms', () => {
    const index = new InvertedIndex();
    const rnd = seededRandom(11);
    let wanted: Uint32Array = new Uint32Array();
    for (let k = 0; k < 10_000; k++) {
      const w = randomWords(rnd, 1000, 10_000);
      if (k === 4321) wanted = w;
      index.add(k, w);
    }
    // Half of the words survive the edit, the rest are replaced by random ones.
    const query = wanted.map((w, i) => (i % 2 === 0 ? w : Math.floor(rnd() * 10_000)));
    const t = performance.now();
    const c = index.candidates(query, 20);
    const ms = performance.now() - t;
    expect(c[0].imageKey).toBe(4321);
    expect(ms).toBeLessThan(100);
  });
});
