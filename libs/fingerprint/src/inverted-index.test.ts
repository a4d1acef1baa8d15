import { describe, expect, it } from 'vitest';
import { InvertedIndex, mergeVoteStatistics, STOP_LIST_MIN_IMAGES, STOP_WORD_SHARE, stopWordBound, termFrequencies } from './inverted-index';
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

  it('finds a noisy copy among 10 000 images with random words (its speed is measured by the benchmarks, not here)', () => {
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
    const c = index.candidates(query, 20);
    expect(c[0].imageKey).toBe(4321);
  });

  it('scores exactly as the tf-idf formula over the live images, over gaps of one to three varint bytes', () => {
    const rand = seededRandom(5);
    const index = new InvertedIndex();
    const images = new Map<number, Uint32Array>();
    for (let i = 0; i < 20_000; i++) {
      // Common words (dense lists, 1-byte gaps), and word 4242 in only every 17,000th image (3-byte gaps).
      const ws = Uint32Array.from({ length: 40 }, () => Math.floor(rand() * rand() * 2000));
      if (i % 17_000 === 3) ws[0] = 4242;
      if (i % 300 === 1) ws[1] = ws[2]; // a repeated word: tf 2
      images.set(1_000_000 + i * 3, ws);
      index.add(1_000_000 + i * 3, ws);
    }
    index.trim();
    const keys = [...images.keys()];
    for (const q of [0, 1, 3, 301, 17_003, 19_999]) {
      expect(index.candidates(images.get(keys[q])!, 50)).toEqual(referenceCandidates(images, images.get(keys[q])!, 50));
    }
    expect(index.candidates(words(4242), 10).map((c) => c.imageKey)).toEqual([1_000_009, 1_051_009]);
    expect(index.candidates(words(999_999), 10)).toEqual([]);
    // Removing a third: until the last removals are compacted, scores move by less than the dead share (1/8)...
    for (const key of keys.filter((_, i) => i % 3 === 0)) {
      index.remove(key);
      images.delete(key);
    }
    expect(index.size).toBe(images.size);
    for (const q of [1, 2]) {
      const expected = referenceCandidates(images, images.get(keys[q])!, 5);
      const got = index.candidates(images.get(keys[q])!, 5);
      expect(got[0].imageKey).toBe(expected[0].imageKey);
      expect(Math.abs(got[0].votes / expected[0].votes - 1)).toBeLessThan(1 / 8);
    }
    // ...and once compacted they are again exactly the formula's over what is left.
    index.compact();
    for (const q of [1, 2, 17_003, 19_997]) expect(index.candidates(images.get(keys[q])!, 50)).toEqual(referenceCandidates(images, images.get(keys[q])!, 50));
    expect(index.candidates(words(4242), 10).map((c) => c.imageKey)).toEqual([1_051_009]);
  });

  it('votes in parts of a collection with the summed statistics exactly as one index of every image', () => {
    const rand = seededRandom(23);
    const whole = new InvertedIndex();
    const parts = [new InvertedIndex(), new InvertedIndex(), new InvertedIndex()];
    const images: Uint32Array[] = [];
    for (let i = 0; i < 3_000; i++) {
      const ws = Uint32Array.from({ length: 60 }, () => Math.floor(rand() * rand() * 3000));
      images.push(ws);
      whole.add(i, ws);
      parts[i % 3].add(i, ws);
    }
    for (const q of [0, 1, 2, 1234, 2999]) {
      const query = images[q].map((w) => (rand() < 0.4 ? Math.floor(rand() * 3000) : w));
      const statistics = mergeVoteStatistics(parts.map((part) => part.voteStatistics(query)));
      expect(statistics.images).toBe(3_000);
      const merged = parts
        .flatMap((part) => part.candidates(query, 20, statistics))
        .sort((a, b) => b.votes - a.votes || a.imageKey - b.imageKey)
        .slice(0, 20);
      const expected = whole.candidates(query, 20);
      expect(merged[0].imageKey).toBe(q);
      expect(merged.map((c) => c.imageKey)).toEqual(expected.map((c) => c.imageKey));
      merged.forEach((c, i) => expect(c.votes).toBeCloseTo(expected[i].votes, 9));
      // Each part's own statistics rank differently: that is why they are summed.
      expect(parts[q % 3].candidates(query, 1)[0].votes).not.toBeCloseTo(expected[0].votes, 6);
    }
  });

  it('leaves words of more than a tenth of the images out of the vote, or of 10,000 images in a smaller collection', () => {
    const index = new InvertedIndex();
    // Word 1 is in every image, word 2 in every fifth, word 3 in every twentieth; each image has a word of its own.
    const add = (key: number) => index.add(key, words(1, ...(key % 5 === 0 ? [2] : []), ...(key % 20 === 0 ? [3] : []), 100_000 + key));
    for (let key = 0; key < 999; key++) add(key);
    // Under 1,000 images no word can be in more than a tenth of 10,000: every word votes.
    expect(index.candidates(words(1), 5)).toHaveLength(5);
    for (let key = 999; key < 2000; key++) add(key);
    // In 2,000: word 1 (2,000 images) is out, word 2 (400) is not.
    expect(index.candidates(words(1), 5)).toEqual([]);
    expect(index.candidates(words(2), 500)).toHaveLength(400);
    // The bound does not jump anywhere: 1,000 up to 10,000 images, then a tenth of the collection.
    expect(stopWordBound(STOP_LIST_MIN_IMAGES - 1)).toBe(stopWordBound(STOP_LIST_MIN_IMAGES));
    expect(stopWordBound(STOP_LIST_MIN_IMAGES * 2)).toBe(2 * stopWordBound(STOP_LIST_MIN_IMAGES));
    for (let key = 2000; key < 20_000; key++) add(key);
    // In 20,000: word 2 (4,000 images) is out, word 3 (1,000) still votes.
    expect(index.candidates(words(2), 5)).toEqual([]);
    expect(index.candidates(words(3), 2000)).toHaveLength(1000);
    // A query still finds its image by its rarer words.
    expect(index.candidates(words(1, 2, 100_040), 1)[0].imageKey).toBe(40);
  });

  it('never offers a removed image, before and after the lists are compacted', () => {
    const index = new InvertedIndex();
    for (let k = 0; k < 100; k++) index.add(k, words(k, 1000 + (k % 10)));
    index.remove(7);
    // One dead slot of 100 is below the compaction share: it is skipped by the vote.
    expect(index.candidates(words(7, 1007), 100).map((c) => c.imageKey)).not.toContain(7);
    expect(index.candidates(words(1007), 100).map((c) => c.imageKey).sort((a, b) => a - b)).toEqual([17, 27, 37, 47, 57, 67, 77, 87, 97]);
    index.add(7, words(555));
    expect(index.candidates(words(555), 10).map((c) => c.imageKey)).toEqual([7]);
    expect(index.candidates(words(1007), 100).map((c) => c.imageKey)).not.toContain(7);
    for (let k = 20; k < 40; k++) index.remove(k);
    expect(index.size).toBe(80);
    expect(index.candidates(words(1007), 100).map((c) => c.imageKey).sort((a, b) => a - b)).toEqual([17, 47, 57, 67, 77, 87, 97]);
  });

  it('indexes a page of images with addAll exactly as one add after the other, replacements and repeated keys included', () => {
    const rand = seededRandom(33);
    const one = new InvertedIndex();
    const paged = new InvertedIndex();
    const pages: Array<Array<{ imageKey: number; words: Uint32Array }>> = [];
    for (let p = 0; p < 4; p++) {
      const page = Array.from({ length: 500 }, (_, i) => ({ imageKey: p * 500 + i, words: randomWords(rand, 200 + Math.floor(rand() * 300), 3000) }));
      // Later pages give some keys again: images re-fingerprinted while the index loads, enough of them that a removal
      // compacts the lists in the middle of a page; and one key twice within a page.
      if (p >= 2) for (let i = 0; i < 150; i++) page[i].imageKey = i * 3;
      page.push({ imageKey: page[0].imageKey, words: randomWords(rand, 50, 3000) });
      pages.push(page);
    }
    for (const page of pages) {
      for (const image of page) one.add(image.imageKey, image.words);
      paged.addAll(page);
    }
    expect(paged.size).toBe(one.size);
    const queries = [pages[3][7].words, pages[1][400].words, pages[3][500].words, ...Array.from({ length: 20 }, () => randomWords(rand, 300, 3000))];
    for (const query of queries) expect(paged.candidates(query, 50)).toEqual(one.candidates(query, 50));
    paged.trim();
    one.trim();
    expect(paged.typedBytes, 'lists of the same lengths').toBe(one.typedBytes);
  });

  it('takes a page of more words than one sort of addAll holds (4M), in parts', () => {
    const rand = seededRandom(34);
    const page = Array.from({ length: 4300 }, (_, i) => ({ imageKey: i, words: randomWords(rand, 1000, 1 << 16) }));
    const paged = new InvertedIndex();
    paged.addAll(page);
    const one = new InvertedIndex();
    for (const { imageKey, words } of page) one.add(imageKey, words);
    expect(paged.size).toBe(4300);
    for (const query of [page[0].words, page[4299].words]) expect(paged.candidates(query, 10)).toEqual(one.candidates(query, 10));
    paged.trim();
    one.trim();
    expect(paged.typedBytes).toBe(one.typedBytes);
  });

  it('votes exactly as the formula across the blocks of slots the vote reads (150,000 images, postings far apart and close)', () => {
    const rand = seededRandom(12);
    const index = new InvertedIndex();
    const images = new Map<number, Uint32Array>();
    const page: Array<{ imageKey: number; words: Uint32Array }> = [];
    for (let i = 0; i < 150_000; i++) {
      // Word 7 in every image (a stop word from 1,000 images on), 8 in every 70,000th (gaps across whole blocks),
      // the rest spread over 5,000 words; a repeated word now and then.
      const ws = Uint32Array.from({ length: 12 }, () => 10 + Math.floor(rand() * 5000));
      ws[0] = 7;
      if (i % 70_000 === 5) ws[1] = 8;
      if (i % 9 === 0) ws[3] = ws[4];
      images.set(i, ws);
      page.push({ imageKey: i, words: ws });
    }
    index.addAll(page);
    for (const q of [0, 5, 65_535, 65_536, 70_005, 149_999]) {
      expect(index.candidates(images.get(q)!, 20)).toEqual(referenceCandidates(images, images.get(q)!, 20));
    }
    expect(index.candidates(words(8), 5).map((c) => c.imageKey)).toEqual([5, 70_005, 140_005]);
  });

  it('holds a posting of a word found once in its image in under 1.25 bytes', () => {
    const rand = seededRandom(9);
    const index = new InvertedIndex();
    let postings = 0;
    for (let i = 0; i < 5000; i++) {
      const ws = Uint32Array.from(new Set(Array.from({ length: 600 }, () => Math.floor(rand() * rand() * 10_000))));
      postings += ws.length;
      index.add(i, ws);
    }
    index.trim();
    // A one-byte gap and flag, no term frequency byte (1.08 measured; 2.04 with a term frequency byte per posting).
    expect(index.typedBytes / postings).toBeLessThan(1.25);
  });

  it('comes back from its snapshot sections with the same candidates, without the images removed before', async () => {
    const rand = seededRandom(21);
    const index = new InvertedIndex();
    const images = new Map<number, Uint32Array>();
    for (let k = 0; k < 3000; k++) {
      const ws = randomWords(rand, 300, 5000);
      images.set(k * 7, ws);
      index.add(k * 7, ws);
    }
    for (let k = 0; k < 100; k++) {
      index.remove(k * 7);
      images.delete(k * 7);
    }
    const sections = index.toSections();
    const bytes = Buffer.concat(sections);
    let at = 0;
    const restored = await InvertedIndex.fromSections(async (n) => Uint8Array.from(bytes.subarray(at, (at += n))));
    expect(at).toBe(bytes.length);
    expect(restored.size).toBe(images.size);
    for (const key of [700, 7 * 1500, 7 * 2999]) expect(restored.candidates(images.get(key)!, 20)).toEqual(index.candidates(images.get(key)!, 20));
    expect(restored.candidates(images.get(700)!, 20)).toEqual(referenceCandidates(images, images.get(700)!, 20));
    // It goes on growing and forgetting like any index.
    restored.add(1, words(4999, 4998));
    restored.remove(700);
    expect(restored.has(700)).toBe(false);
    expect(restored.candidates(words(4999, 4998), 1)[0].imageKey).toBe(1);
  });
});

/** The scoring rule written out over plain maps: what the index must compute, whatever its layout. */
function referenceCandidates(images: Map<number, Uint32Array>, query: Uint32Array, limit: number) {
  const df = new Map<number, number>();
  const tfs = new Map<number, Map<number, number>>();
  for (const [key, ws] of images) {
    const tf = termFrequencies(ws);
    tfs.set(key, tf);
    for (const w of tf.keys()) df.set(w, (df.get(w) ?? 0) + 1);
  }
  const keys = [...images.keys()];
  const votes = new Float64Array(keys.length);
  for (const [w, tfQuery] of termFrequencies(query)) {
    if (!df.has(w)) continue;
    if (df.get(w)! > STOP_WORD_SHARE * Math.max(images.size, STOP_LIST_MIN_IMAGES)) continue;
    const idf = Math.log(1 + images.size / df.get(w)!);
    keys.forEach((key, i) => {
      const tf = tfs.get(key)!.get(w);
      if (tf) votes[i] += idf * Math.min(tfQuery, Math.min(tf, 255));
    });
  }
  keys.forEach((key, i) => {
    if (votes[i] > 0) votes[i] /= Math.sqrt(Math.max(1, images.get(key)!.length));
  });
  const ranked = keys.map((_, i) => i).filter((i) => votes[i] > 0);
  ranked.sort((a, b) => votes[b] - votes[a] || a - b);
  return ranked.slice(0, limit).map((i) => ({ imageKey: keys[i], votes: votes[i] }));
}
