import { InvertedIndex, seededRandom } from '@loupe/fingerprint';
import { describe, expect, it } from 'vitest';
import { CompactShardIndex } from './compact-index';

describe('CompactShardIndex', () => {
  it('ranks and scores exactly as InvertedIndex, over gaps of one to three varint bytes', () => {
    const rand = seededRandom(5);
    const compact = new CompactShardIndex();
    const reference = new InvertedIndex();
    const images: Uint32Array[] = [];
    for (let i = 0; i < 20_000; i++) {
      // Common words (dense lists, 1-byte gaps), and word 4242 in only every 17,000th image (3-byte gaps).
      const words = Uint32Array.from({ length: 40 }, () => Math.floor(rand() * rand() * 2000));
      if (i % 17_000 === 3) words[0] = 4242;
      if (i % 300 === 1) words[1] = words[2]; // a repeated word: tf 2
      images.push(words);
      compact.add(1_000_000 + i * 3, words);
      reference.add(1_000_000 + i * 3, words);
    }
    compact.trim();
    expect(compact.size).toBe(reference.size);
    for (const q of [0, 1, 3, 301, 17_003, 19_999]) {
      expect(compact.candidates(images[q], 50)).toEqual(reference.candidates(images[q], 50));
    }
    expect(compact.candidates(Uint32Array.of(4242), 10).map((c) => c.imageKey)).toEqual([1_000_009, 1_051_009]);
    expect(compact.candidates(Uint32Array.of(999_999), 10)).toEqual([]);
  });

  it('ignores an image delivered twice (by a load and by the change log), and keeps working after a trim', () => {
    const index = new CompactShardIndex();
    index.add(7, Uint32Array.of(1, 2, 3));
    index.add(7, Uint32Array.of(1, 2, 3));
    index.trim();
    index.add(8, Uint32Array.of(3, 4));
    expect(index.size).toBe(2);
    expect(index.candidates(Uint32Array.of(3), 5).map((c) => c.imageKey)).toEqual([8, 7]);
  });

  it('holds a posting in under 3 bytes where InvertedIndex needs 6 plus 4 for its word lists', () => {
    const rand = seededRandom(9);
    const index = new CompactShardIndex();
    let postings = 0;
    for (let i = 0; i < 5000; i++) {
      const words = Uint32Array.from(new Set(Array.from({ length: 600 }, () => Math.floor(rand() * rand() * 10_000))));
      postings += words.length;
      index.add(i, words);
    }
    index.trim();
    expect(index.typedBytes / postings).toBeLessThan(3);
  });
});
