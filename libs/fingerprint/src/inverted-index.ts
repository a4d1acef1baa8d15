import { MAP_ENTRY_BYTES, PostingLists, VoteHelper } from './posting-lists';
import { TopIndices } from './top-k';

/** Growth of the per-slot arrays when full: by half, not doubled. */
const GROWTH = 1.5;
/** Entries (word, slot) `addAll` sorts at once: its packed sort key numbers them in 22 bits. */
const MAX_PENDING_ENTRIES = 1 << 22;
/**
 * Removed images whose postings are still in the lists, as a share of all slots, past which the lists are rewritten
 * without them (`compact`). Until then they cost a little memory and count in document frequencies, as deleted
 * documents do in Lucene until a merge.
 */
const MAX_DEAD_SHARE = 1 / 8;

/**
 * Words found in more than this share of a collection's images are left out of the vote (a stop list). On ORB words a
 * few are in most images (the most common search word is in 58 % of photos); they barely separate images but make up
 * most of the postings a vote reads. Measured with the search vocabulary (tools/bench/vocabulary): leaving out words
 * in more than 10 % of the images kept the true image among the verified candidates as often (93.1 % against 92.2 %
 * with every word) and read 3.7 times fewer postings; at 5 % it fell to 88.8 %.
 */
export const STOP_WORD_SHARE = 0.1;
/**
 * The stop list's bound on document frequency is STOP_WORD_SHARE of the collection's images, but never below that share
 * of this many. In a small collection every word is in a large share of it, and the vote costs nothing worth saving:
 * under a tenth of this many images no word is stopped (as under 1,000 images before, where the benchmarks at 1,000
 * measured recall), and the bound grows with the collection from this many on. A list that switched on at one size
 * took every common word out of a search's vote when one image was added.
 */
export const STOP_LIST_MIN_IMAGES = 10_000;

/** Words in more images than this are stop words (`VoteOptions.stopWordShare`; 1 keeps every word). */
export function stopWordBound(images: number, stopWordShare = STOP_WORD_SHARE): number {
  return stopWordShare * Math.max(images, STOP_LIST_MIN_IMAGES);
}

/** What idf is computed from: images counted (N) and, per word, the images containing it (df). */
export interface VoteStatistics {
  images: number;
  documentFrequency: ReadonlyMap<number, number>;
}

/** The statistics of indexes that together hold one collection: N and every df summed. */
/** How `candidates` votes: which words are stop words (1 lets every word vote), and a thread to share the reading with. */
export interface VoteOptions {
  stopWordShare?: number;
  helper?: VoteHelper | null;
}

export function mergeVoteStatistics(parts: readonly VoteStatistics[]): VoteStatistics {
  const documentFrequency = new Map<number, number>();
  let images = 0;
  for (const part of parts) {
    images += part.images;
    for (const [w, df] of part.documentFrequency) documentFrequency.set(w, (documentFrequency.get(w) ?? 0) + df);
  }
  return { images, documentFrequency };
}

/**
 * In-memory inverted index from visual word to the images containing it, rebuildable from (imageKey, words) pairs.
 * Scoring is tf-idf voting: each shared word adds idf(w) * min(tf_query, tf_image), idf(w) = ln(1 + N / df(w)), so rare
 * words count most and a repeated word cannot outvote its repetitions. The smoothing (+1) keeps a word shared by every
 * image worth something: with plain ln(N/df) a collection of one image (or a word in every image) would give zero
 * votes and the image could never be a candidate. Votes are divided by the square root of the image's word count (the
 * length normalisation of cosine tf-idf): an image with 1,000 keypoints would otherwise outvote a faint nebula or a
 * smooth wallpaper with 200 simply by having more words to share, and push the true but sparse image out of the
 * shortlist.
 *
 * Memory is what decides how many images a replica can search (about 1.1 bytes per posting here, 10 for plain
 * arrays). Every added image takes the next slot, so each posting list is sorted by construction and stores slots as
 * varint gaps (1-2 bytes) with a flag bit, a term frequency byte only where the word is repeated in the image (capped
 * at 255; an image has at most ~1,000 features), and no word list per image; the lists share a few large chunks
 * (`PostingLists`), so a small collection does not pay for tens of thousands of arrays. Removing an image only marks
 * its slot dead: its postings stay, skipped by the vote, until dead slots are an eighth of all, when every list is
 * rewritten without them. Until then N and df(w) still count them (so scores move by the dead share at most); right
 * after `compact` and in an index never removed from, scores are exactly those of the formula over the live images.
 */
export class InvertedIndex {
  private postings = new PostingLists();
  private readonly slotOfKey = new Map<number, number>();
  private keyOfSlot: Float64Array = new Float64Array(64);
  /** sqrt(word count) per slot: the vote normaliser. */
  private normOfSlot: Float64Array = new Float64Array(64);
  /** 1 for a removed image's slot. */
  private dead: Uint8Array = new Uint8Array(64);
  private slots = 0;
  private deadSlots = 0;

  /** Images in the index. */
  get size(): number {
    return this.slotOfKey.size;
  }

  has(imageKey: number): boolean {
    return this.slotOfKey.has(imageKey);
  }

  /** Indexes an image's words; re-adding a key replaces its previous words. */
  add(imageKey: number, words: Uint32Array): void {
    this.addAll([{ imageKey, words }]);
  }

  /**
   * Indexes many images, as `add` of each in order would, but appends word by word: each posting list is reached once
   * per call for all of the call's images instead of once per image. With tens of thousands of lists, one image's
   * appends land in as many places in memory and the load of a large collection was bound by those scattered writes
   * (a load page of 5,000 images gives each list about 60 postings in a row).
   */
  addAll(images: ReadonlyArray<{ imageKey: number; words: Uint32Array }>): void {
    let total = 0;
    for (const { words } of images) total += words.length;
    // Per image its distinct words and their counts, from its sorted words (no Map per image); appended whenever the
    // pending entries would pass what the packed sort key can number.
    const capacity = Math.min(total, MAX_PENDING_ENTRIES);
    const entryWord = new Float64Array(capacity);
    const entrySlot = new Uint32Array(capacity);
    const entryTf = new Uint8Array(capacity);
    let entries = 0;
    const flush = () => {
      // Every pending (word, slot) ordered by word with a stable sort on one packed key, word × 2^22 + entry index:
      // slots stay increasing within a word, as appends need (exact as doubles for word ids below 2^31).
      const order = new Float64Array(entries);
      for (let e = 0; e < entries; e++) order[e] = entryWord[e] * MAX_PENDING_ENTRIES + e;
      order.sort();
      let list = -1;
      let listWord = -1;
      for (let k = 0; k < entries; k++) {
        const e = order[k] % MAX_PENDING_ENTRIES;
        const word = entryWord[e];
        if (word !== listWord) {
          listWord = word;
          list = this.postings.listFor(word);
        }
        this.postings.append(list, entrySlot[e], entryTf[e]);
      }
      entries = 0;
    };
    for (const { imageKey, words } of images) {
      // A key indexed already (or earlier in this call) is replaced as `add` replaces it: what is pending is appended
      // first, since the removal may compact the lists and renumber slots.
      if (this.slotOfKey.has(imageKey)) {
        flush();
        this.remove(imageKey);
      }
      if (entries + words.length > capacity) flush();
      const slot = this.claimSlot(imageKey, words.length);
      const sorted = Uint32Array.from(words).sort();
      for (let i = 0; i < sorted.length; ) {
        let j = i + 1;
        while (j < sorted.length && sorted[j] === sorted[i]) j++;
        entryWord[entries] = sorted[i];
        entrySlot[entries] = slot;
        entryTf[entries] = Math.min(j - i, 0xff);
        entries++;
        i = j;
      }
    }
    flush();
  }

  remove(imageKey: number): void {
    const slot = this.slotOfKey.get(imageKey);
    if (slot === undefined) return;
    this.slotOfKey.delete(imageKey);
    this.dead[slot] = 1;
    this.deadSlots++;
    if (this.deadSlots > this.slots * MAX_DEAD_SHARE) this.compact();
  }

  /**
   * The counts behind this index's idf for a query's words. Indexes that each hold a part of one collection add theirs
   * up (`mergeVoteStatistics`) and vote with the sum, so that their votes are those of one index holding every image.
   */
  voteStatistics(words: Uint32Array): VoteStatistics {
    const documentFrequency = new Map<number, number>();
    for (const w of new Set(words)) {
      const list = this.postings.listOf(w);
      if (list >= 0) documentFrequency.set(w, this.postings.count(list));
    }
    return { images: this.slots, documentFrequency };
  }

  /**
   * Best `limit` images by length-normalised tf-idf votes, highest first; images sharing no word are left out, and so
   * are stop words (`VoteOptions.stopWordShare`). With `statistics`, idf and the stop list come from those counts (a
   * whole collection's) instead of this index's own. The votes are the same with or without a helper thread.
   */
  candidates(words: Uint32Array, limit: number, statistics?: VoteStatistics, options: VoteOptions = {}): Array<{ imageKey: number; votes: number }> {
    const { stopWordShare = STOP_WORD_SHARE, helper = null } = options;
    const n = this.slots;
    if (this.size === 0 || limit <= 0) return [];
    const images = statistics ? statistics.images : n;
    const maxDocumentFrequency = stopWordBound(images, stopWordShare);
    const frequencies = termFrequencies(words);
    const lists = new Int32Array(frequencies.size);
    const idfs = new Float64Array(frequencies.size);
    const tfQueries = new Int32Array(frequencies.size);
    let voting = 0;
    for (const [w, tfQuery] of frequencies) {
      const list = this.postings.listOf(w);
      if (list < 0) continue;
      const df = statistics ? (statistics.documentFrequency.get(w) ?? this.postings.count(list)) : this.postings.count(list);
      if (df > maxDocumentFrequency) continue;
      lists[voting] = list;
      idfs[voting] = Math.log(1 + images / df);
      tfQueries[voting++] = tfQuery;
    }
    // The votes are the vote kernel's memory, which this thread's next vote reuses: read before anything else votes.
    const votes = this.postings.addVotes(lists.subarray(0, voting), idfs.subarray(0, voting), tfQueries.subarray(0, voting), n, helper);
    return topNormalisedVotes(votes, this.normOfSlot, this.dead, limit).map((slot) => ({ imageKey: this.keyOfSlot[slot], votes: votes[slot] }));
  }

  /**
   * Rewrites every posting list without the slots of removed images and renumbers the live ones in order. Runs by
   * itself when dead slots pass an eighth; costs one pass over all postings (about a second per 100 million).
   */
  compact(): void {
    if (this.deadSlots === 0) return;
    const newSlot = new Int32Array(this.slots);
    let live = 0;
    for (let slot = 0; slot < this.slots; slot++) newSlot[slot] = this.dead[slot] ? -1 : live++;
    this.postings = this.postings.renumbered(newSlot);
    const keys = new Float64Array(Math.max(64, live));
    const norms = new Float64Array(Math.max(64, live));
    for (let slot = 0; slot < this.slots; slot++) {
      const to = newSlot[slot];
      if (to < 0) continue;
      keys[to] = this.keyOfSlot[slot];
      norms[to] = this.normOfSlot[slot];
      this.slotOfKey.set(this.keyOfSlot[slot], to);
    }
    this.keyOfSlot = keys;
    this.normOfSlot = norms;
    this.dead = new Uint8Array(keys.length);
    this.slots = live;
    this.deadSlots = 0;
  }

  /** Gives back the growth slack of every buffer (after a bulk load; later additions grow them again). */
  trim(): void {
    this.postings.repack();
    this.keyOfSlot = this.keyOfSlot.slice(0, Math.max(1, this.slots));
    this.normOfSlot = this.normOfSlot.slice(0, Math.max(1, this.slots));
    this.dead = this.dead.slice(0, Math.max(1, this.slots));
  }

  /** Bytes held in typed arrays (postings, keys, norms, dead flags). */
  get typedBytes(): number {
    return this.slotBytes + this.postings.typedBytes;
  }

  /** `typedBytes` and the maps (word → list, image key → slot): what the index holds in memory, for cache bounds. */
  get memoryBytes(): number {
    return this.slotBytes + this.postings.memoryBytes + this.slotOfKey.size * MAP_ENTRY_BYTES;
  }

  /** The per-slot arrays: keys, norms and dead flags. */
  private get slotBytes(): number {
    return this.keyOfSlot.byteLength + this.normOfSlot.byteLength + this.dead.byteLength;
  }

  /**
   * The index as binary sections, for a snapshot that a new process loads instead of re-reading every image's words
   * (see `InvertedIndex.fromSections`). Dead slots are compacted away first, so a snapshot holds live images only.
   */
  toSections(): Uint8Array[] {
    this.compact();
    const header = new Uint32Array([SNAPSHOT_MAGIC, this.slots, this.postings.size]);
    return [asBytes(header), asBytes(this.keyOfSlot.subarray(0, this.slots)), asBytes(this.normOfSlot.subarray(0, this.slots)), ...this.postings.toSections()];
  }

  /** Rebuilds an index from `toSections`' output, read back in order; the buffers read become the index's arrays. */
  static async fromSections(read: SectionReader): Promise<InvertedIndex> {
    const header = new Uint32Array((await read(12)).buffer);
    if (header[0] !== SNAPSHOT_MAGIC) throw new Error('Not an inverted index snapshot');
    const [, slots, words] = header;
    const index = new InvertedIndex();
    index.keyOfSlot = new Float64Array((await read(slots * 8)).buffer);
    index.normOfSlot = new Float64Array((await read(slots * 8)).buffer);
    index.dead = new Uint8Array(slots);
    index.slots = slots;
    for (let slot = 0; slot < slots; slot++) index.slotOfKey.set(index.keyOfSlot[slot], slot);
    index.postings = await PostingLists.fromSections(words, read);
    return index;
  }

  /** The next slot, for an image of `wordCount` words. */
  private claimSlot(imageKey: number, wordCount: number): number {
    const slot = this.slots++;
    if (slot === this.keyOfSlot.length) {
      const length = Math.ceil(slot * GROWTH);
      this.keyOfSlot = grown(this.keyOfSlot, length);
      this.normOfSlot = grown(this.normOfSlot, length);
      this.dead = grown(this.dead, length);
    }
    this.slotOfKey.set(imageKey, slot);
    this.keyOfSlot[slot] = imageKey;
    this.normOfSlot[slot] = Math.sqrt(Math.max(1, wordCount));
    return slot;
  }
}

/**
 * Reads the next `byteLength` bytes of a snapshot into a buffer of their own that starts at its offset 0, so typed
 * views of 4 and 8 bytes can be laid over it: what it returns is kept as it is, never copied again.
 */
export type SectionReader = (byteLength: number) => Promise<Uint8Array>;

/** "LII2": Loupe Inverted Index, snapshot layout 2 (term frequencies inside the postings' bytes). */
const SNAPSHOT_MAGIC = 0x3249494c;

function grown<T extends Uint8Array | Float64Array>(array: T, length: number): T {
  const next = new (array.constructor as new (n: number) => T)(length);
  next.set(array);
  return next;
}

function asBytes(array: Uint32Array | Float64Array): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

/** Occurrences of each word in a word list. */
export function termFrequencies(words: Uint32Array): Map<number, number> {
  const counts = new Map<number, number>();
  for (const w of words) counts.set(w, (counts.get(w) ?? 0) + 1);
  return counts;
}

/**
 * The `k` live slots of the largest votes divided by their norms (`TopIndices`), in one pass: a slot's quotient is
 * computed where its vote is positive and written back only where it enters the top k (which compares against those),
 * so the kernel's memory of a million slots is read once and not rewritten. The votes of the returned slots hold their
 * quotients.
 */
function topNormalisedVotes(votes: Float64Array, norms: Float64Array, dead: Uint8Array, k: number): number[] {
  const top = new TopIndices(votes, k);
  let floor = 0;
  for (let slot = 0; slot < votes.length; slot++) {
    if (!(votes[slot] > 0) || dead[slot]) continue;
    const v = votes[slot] / norms[slot];
    if (v <= floor) continue;
    votes[slot] = v;
    floor = top.offer(slot);
  }
  return top.ranked();
}
