import { describe, expect, it } from 'vitest';
import { type ChunkSizes, PostingLists } from './posting-lists';

/** Small chunks, so that a test of a few thousand postings moves lists into own chunks and repacks waste. */
const SMALL: ChunkSizes = { shared: 4096, ownFrom: 512, minWasteToRepack: 8192 };
import { seededRandom } from './random';

/** Every list's postings as [slot, tf] pairs, by word. */
function contents(lists: PostingLists, words: Iterable<number>): Map<number, Array<[number, number]>> {
  const out = new Map<number, Array<[number, number]>>();
  for (const word of words) {
    const list = lists.listOf(word);
    if (list < 0) continue;
    const postings: Array<[number, number]> = [];
    lists.forEachPosting(list, (slot, tf) => postings.push([slot, tf]));
    out.set(word, postings);
  }
  return out;
}

/** Appends to many lists in an interleaved order, as images arrive: lists fill, move, and leave waste behind. */
function filled(rand: () => number, words: number, images: number, sizes?: ChunkSizes) {
  const lists = new PostingLists(sizes);
  const reference = new Map<number, Array<[number, number]>>();
  for (let slot = 0; slot < images; slot++) {
    for (let k = 0; k < 63; k++) {
      // Three words in every image (long lists) and the rest skewed towards low numbers.
      const word = k < 3 ? words + k : Math.floor(rand() * rand() * words);
      const postings = reference.get(word) ?? [];
      if (postings.at(-1)?.[0] === slot) continue;
      // Mostly words found once in their image; some repeated, some past the 255 a byte holds.
      const tf = rand() < 0.85 ? 1 : rand() < 0.95 ? 2 + Math.floor(rand() * 5) : 300;
      postings.push([slot, Math.min(tf, 255)]);
      reference.set(word, postings);
      lists.append(lists.listFor(word), slot, tf);
    }
  }
  return { lists, reference };
}

describe('posting lists', () => {
  it('give back every posting after lists moved, own chunks were freed and waste was repacked', () => {
    const { lists, reference } = filled(seededRandom(3), 20_000, 3000, SMALL);
    expect(lists.freedChunks).toBeGreaterThan(0);
    expect(lists.repacks).toBeGreaterThan(0);
    expect(contents(lists, reference.keys())).toEqual(reference);
    for (const [word, postings] of reference) expect(lists.count(lists.listOf(word))).toBe(postings.length);
    let live = 0;
    lists.toSections().slice(1).forEach((section) => (live += section.byteLength));
    // Spare room (a third at most) and waste (repacked once it passes the live bytes) stay bounded.
    expect(lists.typedBytes).toBeLessThan(3 * live + lists.size * 28 + 4 * SMALL.shared);
    lists.repack();
    expect(contents(lists, reference.keys())).toEqual(reference);
    expect(lists.typedBytes).toBe(live + lists.size * 28);
  });

  it('keep appending correctly after a tight repack and after a snapshot load', async () => {
    const rand = seededRandom(4);
    const { lists, reference } = filled(rand, 5000, 500, SMALL);
    lists.repack();
    const sections = lists.toSections();
    const bytes = Buffer.concat(sections);
    let at = 0;
    const loaded = await PostingLists.fromSections(lists.size, async (n) => Uint8Array.from(bytes.subarray(at, (at += n))), SMALL);
    expect(at).toBe(bytes.length);
    for (const store of [lists, loaded]) {
      for (const word of [1, 2, 3, 4999, 70_000]) store.append(store.listFor(word), 1000, 3);
      const expected = new Map(reference);
      for (const word of [1, 2, 3, 4999, 70_000]) expected.set(word, [...(reference.get(word) ?? []), [1000, 3]]);
      expect(contents(store, expected.keys())).toEqual(expected);
    }
  });

  it('renumber slots and drop the postings of removed ones, and the lists left empty', () => {
    const { lists, reference } = filled(seededRandom(5), 3000, 400, SMALL);
    const newSlot = Int32Array.from({ length: 400 }, (_, slot) => (slot % 3 === 0 ? -1 : slot - Math.floor(slot / 3) - 1));
    const renumbered = lists.renumbered(newSlot);
    const expected = new Map<number, Array<[number, number]>>();
    for (const [word, postings] of reference) {
      const kept = postings.filter(([slot]) => newSlot[slot] >= 0).map(([slot, tf]): [number, number] => [newSlot[slot], tf]);
      if (kept.length > 0) expected.set(word, kept);
    }
    expect(contents(renumbered, reference.keys())).toEqual(expected);
    expect(renumbered.size).toBe(expected.size);
  });

  it('keep an index of one image small: chunks sized by what they hold, words in a Map until there are many', () => {
    const lists = new PostingLists();
    for (let word = 0; word < 760; word++) lists.append(lists.listFor(word * 79), 0, 1);
    // 760 one-byte postings: 4 kB chunks, 28 bytes of numbers per list slot and a Map entry per word (a flat table of
    // the 60,055 words alone would take 240 kB, a first chunk of full size 256 kB).
    expect(lists.memoryBytes).toBeLessThan(80_000);
    expect(lists.listOf(79 * 759)).toBe(759);
    expect(lists.listOf(78)).toBe(-1);
  });

  it('cost a few dozen bytes per list before their postings', () => {
    const lists = new PostingLists();
    for (let word = 0; word < 60_000; word++) lists.append(lists.listFor(word), 0, 1);
    lists.repack();
    // One byte of posting, 28 bytes of numbers and 4 of word → list per list (a typed array per list and a Map entry
    // per word cost about 250).
    expect(lists.memoryBytes / lists.size).toBeLessThan(40);
    // Word numbers past the flat table's reach are found too.
    lists.append(lists.listFor(3_000_000_000), 5, 2);
    const postings: number[][] = [];
    lists.forEachPosting(lists.listOf(3_000_000_000), (slot, tf) => postings.push([slot, tf]));
    expect(postings).toEqual([[5, 2]]);
    expect(lists.listOf(2_999_999_999)).toBe(-1);
  });
});
