import { voteInKernel, type KernelLists } from './wasm/vote-kernel';

/**
 * Growth of a list's room when it is full: by half, not doubled, so a collection that keeps growing after its load
 * holds at most a third more than it uses (a doubling would allow twice).
 */
const GROWTH = 1.5;
/** First room (bytes) of a list. */
const INITIAL_ROOM = 8;
/** A posting takes at most 6 bytes: a varint of a 32-bit gap and its flag bit (5), and a term frequency byte. */
export const MAX_POSTING_BYTES = 6;
/** How lists are laid out in chunks; the defaults suit collections of any size (tests make them small). */
export interface ChunkSizes {
  /** Size of the chunks small lists share. */
  shared: number;
  /** A list whose room reaches this gets a chunk of its own, freed when it moves. */
  ownFrom: number;
  /** Bytes left behind by moved lists, past which (and past the live bytes) every list is repacked. */
  minWasteToRepack: number;
}

export const DEFAULT_CHUNK_SIZES: ChunkSizes = { shared: 1 << 18, ownFrom: 1 << 13, minWasteToRepack: 1 << 20 };
/** Most bytes one chunk of a snapshot load holds (lists are read in groups up to this). */
const LOAD_CHUNK_BYTES = 1 << 26;
/** A Map entry (key, value, hash table slot) as V8 lays out number keys and values: what each word and image costs. */
export const MAP_ENTRY_BYTES = 40;
/**
 * Words below this find their list in a flat array once the index has FLAT_FROM_LISTS lists (4 bytes per word up to
 * the largest seen: 240 kB for the 60,055 search words, against about 2.4 MB as Map entries); before that, and for
 * larger word numbers, which no vocabulary of ours gives, in a Map (an index of one image has ~760 lists).
 */
const FLAT_WORDS = 1 << 20;
const FLAT_FROM_LISTS = 4096;
/** Smallest shared chunk: an index's first chunks are sized by what it holds, so a tiny collection stays tiny. */
const MIN_SHARED_CHUNK_BYTES = 4096;
const EMPTY: Uint8Array = new Uint8Array(0);
/** The typed arrays indexed by list number, grown and trimmed together. */
const PER_LIST_ARRAYS = ['wordOf', 'countOf', 'usedOf', 'roomOf', 'lastSlotOf', 'chunkOf', 'offsetOf'] as const;
/** Slots whose votes one block of `addVotes` covers: 512 kB of votes (measured at 1M: faster than blocks of 262,144). */
const VOTE_BLOCK_SLOTS = 1 << 16;

/**
 * Every word's posting list of one index, in a few large byte arrays instead of one array per list. A list is a run
 * of bytes in a chunk (`chunkOf`, `offset`, `used` of `room`), with its posting count and last slot beside it in typed
 * arrays indexed by list number. An index over the 60,055 search words of a small collection touches most words:
 * with a typed array (and its buffer) per list and a Map entry per word, each cost about 250 bytes before its first
 * posting, 16-50 MB per collection of 100-10,000 images; here a list costs 28 bytes and its word 4.
 *
 * A full list moves to a larger run at the end of the current shared chunk (or, once large, to a chunk of its own);
 * the run it leaves is waste until the lists are repacked, which happens when the waste passes the live bytes.
 *
 * Posting layout (per list, slots increasing): a varint of (gap to the previous slot × 2 + repeated), where
 * `repeated` says a term frequency byte follows (the word is more than once in that image).
 */
export class PostingLists {
  /** List number + 1 per word below FLAT_WORDS (0: none), once the index has FLAT_FROM_LISTS lists. */
  private listOfFlatWord = new Int32Array(0);
  private flat = false;
  /** Lists of the words not in the flat table. */
  private readonly listOfMappedWord = new Map<number, number>();
  private wordOf = new Uint32Array(64);
  private countOf = new Int32Array(64);
  private usedOf = new Int32Array(64);
  private roomOf = new Int32Array(64);
  private lastSlotOf = new Int32Array(64);
  private chunkOf = new Int32Array(64);
  private offsetOf = new Int32Array(64);
  private chunks: Uint8Array[] = [];
  /** Chunk numbers freed by lists that moved out of their own chunk, for reuse. */
  private freeChunks: number[] = [];
  private shared = -1;
  private sharedFill = 0;
  private wasted = 0;
  private liveBytes = 0;
  private lists = 0;
  /** Repacks made because moved lists left too much waste (for tests and diagnostics). */
  repacks = 0;
  /** Own chunks freed by lists that outgrew them (for tests and diagnostics). */
  freedChunks = 0;

  constructor(private readonly sizes: ChunkSizes = DEFAULT_CHUNK_SIZES) {}

  /** Lists (distinct words) held. */
  get size(): number {
    return this.lists;
  }

  /** The list of `word`, or -1. */
  listOf(word: number): number {
    if (this.flat && word < FLAT_WORDS) return word < this.listOfFlatWord.length ? this.listOfFlatWord[word] - 1 : -1;
    return this.listOfMappedWord.get(word) ?? -1;
  }

  /** Postings in list `list` (the word's document frequency, dead slots included). */
  count(list: number): number {
    return this.countOf[list];
  }

  /** The list of `word`, created empty when it has none. */
  listFor(word: number): number {
    const existing = this.listOf(word);
    if (existing >= 0) return existing;
    const list = this.lists++;
    if (list === this.wordOf.length) this.growLists(Math.ceil(list * GROWTH));
    this.setList(word, list);
    this.wordOf[list] = word;
    this.countOf[list] = 0;
    this.usedOf[list] = 0;
    this.lastSlotOf[list] = -1;
    this.place(list, INITIAL_ROOM);
    return list;
  }

  /** Appends a posting; slots must grow within a list. */
  append(list: number, slot: number, tf: number): void {
    const used = this.usedOf[list];
    if (used + MAX_POSTING_BYTES > this.roomOf[list]) this.move(list, Math.max(Math.ceil(this.roomOf[list] * GROWTH), used + MAX_POSTING_BYTES));
    const data = this.chunks[this.chunkOf[list]];
    let at = this.offsetOf[list] + used;
    const repeated = tf > 1;
    let value = (slot - this.lastSlotOf[list]) * 2 + (repeated ? 1 : 0);
    while (value >= 0x80) {
      data[at++] = (value & 0x7f) | 0x80;
      value = Math.floor(value / 128);
    }
    data[at++] = value;
    if (repeated) data[at++] = Math.min(tf, 0xff);
    const written = at - this.offsetOf[list] - used;
    this.usedOf[list] = used + written;
    this.liveBytes += written;
    this.countOf[list]++;
    this.lastSlotOf[list] = slot;
  }

  /**
   * Adds the votes of a query's lists to every image in them: idf × min(tf in the query, tf in the image) (`voteLists`).
   * With `helper`, and enough postings to be worth a message, about half of the postings are read by the helper's
   * thread at the same time (`VoteHelper`): the vote is the part of a large collection's search that no other thread
   * was doing. The votes over `slots` slots come back as `voteLists` gives them: valid until this thread's next vote.
   */
  addVotes(lists: Int32Array, idfs: Float64Array, tfQueries: Int32Array, slots: number, helper?: VoteHelper | null): Float64Array {
    const k = lists.length;
    const data = new Array<Uint8Array>(k);
    const offsets = new Int32Array(k);
    const lengths = new Int32Array(k);
    const counts = new Int32Array(k);
    let postings = 0;
    for (let j = 0; j < k; j++) {
      data[j] = this.chunks[this.chunkOf[lists[j]]];
      offsets[j] = this.offsetOf[lists[j]];
      lengths[j] = this.usedOf[lists[j]];
      counts[j] = this.countOf[lists[j]];
      postings += counts[j];
    }
    const all: VoteLists = { data, offsets, lengths, counts, idfs, tfQueries };
    if (helper && postings >= helper.minPostings) {
      const [mine, theirs] = splitByPostings(all);
      if (theirs.counts.length > 0 && helper.start(theirs, slots)) {
        let votes = voteLists(mine, slots);
        helper.finish(votes, () => {
          votes = voteLists(theirs, slots, true);
        });
        return votes;
      }
    }
    return voteLists(all, slots);
  }

  /**
   * Calls `visit` with every posting's slot and term frequency, in slot order. (`addVotes` decodes the same way inline,
   * so that the vote's loop over millions of postings makes no call per posting.)
   */
  forEachPosting(list: number, visit: (slot: number, tf: number) => void): void {
    const data = this.chunks[this.chunkOf[list]];
    const count = this.countOf[list];
    let at = this.offsetOf[list];
    let slot = -1;
    for (let i = 0; i < count; i++) {
      let b = data[at++];
      let value = b & 0x7f;
      for (let shift = 7; b & 0x80; shift += 7) {
        b = data[at++];
        value |= (b & 0x7f) << shift;
      }
      slot += value >>> 1;
      visit(slot, (value & 1) === 0 ? 1 : data[at++]);
    }
  }

  /**
   * The same lists with every slot renumbered by `newSlot` (-1 drops the posting), in new chunks, tightly packed;
   * lists left empty are gone.
   */
  renumbered(newSlot: Int32Array): PostingLists {
    const next = new PostingLists(this.sizes);
    for (let list = 0; list < this.lists; list++) {
      let target = -1;
      this.forEachPosting(list, (slot, tf) => {
        if (newSlot[slot] < 0) return;
        if (target < 0) target = next.listFor(this.wordOf[list]);
        next.append(target, newSlot[slot], tf);
      });
    }
    next.repack(true);
    return next;
  }

  /**
   * Rewrites every list into fresh chunks, without waste: with no room to spare when `tight` (after a bulk load), else
   * keeping each list's room (when moved lists' waste passes the live bytes).
   */
  repack(tight = true): void {
    let total = 0;
    for (let list = 0; list < this.lists; list++) total += tight ? this.usedOf[list] : this.roomOf[list];
    const chunks: Uint8Array[] = [];
    let chunk = EMPTY;
    let fill = 0;
    for (let list = 0; list < this.lists; list++) {
      const used = this.usedOf[list];
      const room = tight ? used : this.roomOf[list];
      if (fill + room > chunk.length) {
        chunk = sharedBytes(Math.max(room, Math.min(LOAD_CHUNK_BYTES, total)));
        chunks.push(chunk);
        fill = 0;
      }
      const from = this.offsetOf[list];
      chunk.set(this.chunks[this.chunkOf[list]].subarray(from, from + used), fill);
      this.chunkOf[list] = chunks.length - 1;
      this.offsetOf[list] = fill;
      this.roomOf[list] = room;
      fill += room;
      total -= room;
    }
    this.chunks = chunks;
    this.freeChunks = [];
    // What is left of the last chunk is where the next lists to grow move to.
    this.shared = chunks.length - 1;
    this.sharedFill = fill;
    this.wasted = 0;
    if (tight) {
      const n = Math.max(1, this.lists);
      for (const name of PER_LIST_ARRAYS) {
        this[name] = this[name].slice(0, n) as never;
      }
    }
  }

  /** Bytes held in typed arrays: postings with their spare room and waste, and the per-list numbers. */
  get typedBytes(): number {
    let bytes = 0;
    for (const name of PER_LIST_ARRAYS) bytes += this[name].byteLength;
    for (const chunk of this.chunks) bytes += chunk.byteLength;
    return bytes;
  }

  /** `typedBytes` and the word → list map. */
  get memoryBytes(): number {
    return this.typedBytes + this.listOfFlatWord.byteLength + this.listOfMappedWord.size * MAP_ENTRY_BYTES;
  }

  /** The lists as sections: a directory of [word, count, bytes, last slot] per list, then each list's bytes. */
  toSections(): Uint8Array[] {
    const directory = new Uint32Array(this.lists * 4);
    for (let list = 0; list < this.lists; list++) directory.set([this.wordOf[list], this.countOf[list], this.usedOf[list], this.lastSlotOf[list]], 4 * list);
    const sections: Uint8Array[] = [new Uint8Array(directory.buffer)];
    for (let list = 0; list < this.lists; list++) {
      const from = this.offsetOf[list];
      sections.push(this.chunks[this.chunkOf[list]].subarray(from, from + this.usedOf[list]));
    }
    return sections;
  }

  /** Reads `toSections`' output for `lists` lists; consecutive lists' bytes are read together into shared chunks. */
  static async fromSections(lists: number, read: (byteLength: number) => Promise<Uint8Array>, sizes = DEFAULT_CHUNK_SIZES): Promise<PostingLists> {
    const store = new PostingLists(sizes);
    const directory = new Uint32Array((await read(lists * 16)).buffer);
    store.growLists(Math.max(1, lists));
    for (let first = 0; first < lists; ) {
      let last = first;
      let bytes = 0;
      while (last < lists && (last === first || bytes + directory[4 * last + 2] <= LOAD_CHUNK_BYTES)) bytes += directory[4 * last++ + 2];
      store.chunks.push(asShared(await read(bytes)));
      let at = 0;
      for (let list = first; list < last; list++) {
        const [word, count, used, lastSlot] = directory.subarray(4 * list, 4 * list + 4);
        store.setList(word, list);
        store.wordOf[list] = word;
        store.countOf[list] = count;
        store.usedOf[list] = used;
        store.roomOf[list] = used;
        store.lastSlotOf[list] = lastSlot | 0;
        store.chunkOf[list] = store.chunks.length - 1;
        store.offsetOf[list] = at;
        at += used;
        store.liveBytes += used;
      }
      first = last;
    }
    store.lists = lists;
    return store;
  }

  /** Gives `list` a run of `room` bytes (a new list: nothing to copy). */
  private place(list: number, room: number): void {
    if (room >= this.sizes.ownFrom) {
      const chunk = this.freeChunks.pop() ?? this.chunks.length;
      this.chunks[chunk] = sharedBytes(room);
      this.chunkOf[list] = chunk;
      this.offsetOf[list] = 0;
    } else {
      if (this.shared < 0 || this.sharedFill + room > this.chunks[this.shared].length) {
        this.shared = this.freeChunks.pop() ?? this.chunks.length;
        this.chunks[this.shared] = sharedBytes(Math.min(this.sizes.shared, Math.max(MIN_SHARED_CHUNK_BYTES, room, this.liveBytes >> 1)));
        this.sharedFill = 0;
      }
      this.chunkOf[list] = this.shared;
      this.offsetOf[list] = this.sharedFill;
      this.sharedFill += room;
    }
    this.roomOf[list] = room;
  }

  /** Moves a full list to a run of `room` bytes, leaving its old run as waste (or freeing its own chunk). */
  private move(list: number, room: number): void {
    if (!this.ownsChunk(list)) {
      const wasted = this.wasted + this.roomOf[list];
      if (wasted > this.sizes.minWasteToRepack && wasted > this.liveBytes) {
        this.repack(false);
        this.repacks++;
      }
    }
    const own = this.ownsChunk(list);
    const oldChunk = this.chunkOf[list];
    const oldRoom = this.roomOf[list];
    const from = this.offsetOf[list];
    const bytes = this.chunks[oldChunk].subarray(from, from + this.usedOf[list]);
    this.place(list, room);
    this.chunks[this.chunkOf[list]].set(bytes, this.offsetOf[list]);
    if (own) {
      this.chunks[oldChunk] = EMPTY;
      this.freeChunks.push(oldChunk);
      this.freedChunks++;
    } else {
      this.wasted += oldRoom;
    }
  }

  /** Whether the list is alone in its chunk (a large list's own), which is freed when it moves. */
  private ownsChunk(list: number): boolean {
    return this.offsetOf[list] === 0 && this.chunks[this.chunkOf[list]].length === this.roomOf[list];
  }

  private setList(word: number, list: number): void {
    if (!this.flat && list + 1 >= FLAT_FROM_LISTS) {
      this.flat = true;
      for (const [mapped, itsList] of this.listOfMappedWord) {
        if (mapped >= FLAT_WORDS) continue;
        this.listOfMappedWord.delete(mapped);
        this.setList(mapped, itsList);
      }
    }
    if (!this.flat || word >= FLAT_WORDS) {
      this.listOfMappedWord.set(word, list);
      return;
    }
    if (word >= this.listOfFlatWord.length) {
      const grown = new Int32Array(Math.min(FLAT_WORDS, Math.max(word + 1, Math.ceil(this.listOfFlatWord.length * GROWTH))));
      grown.set(this.listOfFlatWord);
      this.listOfFlatWord = grown;
    }
    this.listOfFlatWord[word] = list + 1;
  }

  private growLists(length: number): void {
    for (const name of PER_LIST_ARRAYS) {
      const next = new (this[name].constructor as new (n: number) => Uint32Array | Int32Array)(length);
      next.set(this[name]);
      this[name] = next as never;
    }
  }
}

/** The lists one vote reads: each list's bytes (the chunk holding it), where they start and how many, its postings, idf and query tf. */
export type VoteLists = KernelLists;

/**
 * A thread that reads part of a vote's lists while the calling thread reads the rest (pool/vote-thread.ts). Both calls
 * are synchronous for the caller, which never yields between them, so no add or removal can touch the lists meanwhile.
 */
export interface VoteHelper {
  /** Fewest postings a vote must read for the helper to be asked: below it, the message costs more than it saves. */
  readonly minPostings: number;
  /** Hands `lists` to the helper's thread; false when it cannot take them (not started yet, failed, or lists it cannot share). */
  start(lists: VoteLists, slots: number): boolean;
  /** Waits for the helper's votes and adds them to `votes`; when the helper fails, `fallback` reads its lists here. */
  finish(votes: Float64Array, fallback: () => void): void;
}

/**
 * The votes of `lists` over `slots` slots, from zero or (`addToLast`) added to this thread's last ones, in the vote
 * kernel's memory (`voteInKernel`: valid until this thread's next vote, and never allocated or copied per vote, which at
 * a million images was 8 MB to zero, copy in and copy out each time, and the slow tail of a shared vote: p95 148-176 ->
 * 68-70 ms, docs/benchmarks.md, session 39). This is most of a large collection's vote (a query reads about 16
 * postings per image), and its cost there is memory, not arithmetic: a million images' votes (8 MB) do not stay in the
 * processor's caches while each list scatters over them. So the lists are read block by block of VOTE_BLOCK_SLOTS
 * slots, each list resuming where it stopped, and the block's votes stay cached (on the million-image benchmark's
 * words: p50 132 -> 95 ms, p95 294 -> 172 ms). The reading runs in WebAssembly (wasm/vote-kernel.wat): the same sums in
 * the same order as the JavaScript loop it replaced, 1.8 times faster on 15M generated postings; the million-image
 * benchmark's vote alone went from 167 to 131 ms (p50, docs/benchmarks.md, session 13).
 */
export function voteLists(lists: VoteLists, slots: number, addToLast = false): Float64Array {
  return voteInKernel(lists, slots, VOTE_BLOCK_SLOTS, addToLast);
}

/**
 * Two halves of `lists` with about as many postings each (the longest first, each to the lighter half): what each
 * thread of a shared vote reads. A vote's sum does not depend on which thread adds which list.
 */
export function splitByPostings(lists: VoteLists): [VoteLists, VoteLists] {
  const order = Array.from(lists.counts.keys()).sort((a, b) => lists.counts[b] - lists.counts[a]);
  const halves: number[][] = [[], []];
  const sums = [0, 0];
  for (const j of order) {
    const lighter = sums[0] <= sums[1] ? 0 : 1;
    halves[lighter].push(j);
    sums[lighter] += lists.counts[j];
  }
  const pick = (chosen: number[]): VoteLists => ({
    data: chosen.map((j) => lists.data[j]),
    offsets: Int32Array.from(chosen, (j) => lists.offsets[j]),
    lengths: Int32Array.from(chosen, (j) => lists.lengths[j]),
    counts: Int32Array.from(chosen, (j) => lists.counts[j]),
    idfs: Float64Array.from(chosen, (j) => lists.idfs[j]),
    tfQueries: Int32Array.from(chosen, (j) => lists.tfQueries[j]),
  });
  return [pick(halves[0]), pick(halves[1])];
}

/** Posting bytes live in shared memory, so that a vote's helper thread reads the same bytes without a copy. */
function sharedBytes(length: number): Uint8Array {
  return new Uint8Array(new SharedArrayBuffer(length));
}

/** `bytes` in shared memory: itself when it already is, else a copy (a snapshot's sections are read into plain buffers). */
function asShared(bytes: Uint8Array): Uint8Array {
  if (bytes.buffer instanceof SharedArrayBuffer) return bytes;
  const shared = sharedBytes(bytes.length);
  shared.set(bytes);
  return shared;
}
