/** Initial capacity of a word's posting list; doubles as it fills. */
const INITIAL_POSTINGS = 8;

/** One word's postings: parallel arrays of image slot and term frequency, `length` used. */
interface Postings {
  slots: Uint32Array;
  tf: Uint16Array;
  length: number;
}

/**
 * In-memory inverted index from visual word to the images containing it, rebuildable from
 * (imageKey, words) pairs. Scoring is tf-idf voting: each shared word adds idf(w) * min(tf_query, tf_image),
 * idf(w) = ln(1 + N / df(w)), so rare words count most and a repeated word cannot outvote its repetitions. The
 * smoothing (+1) keeps a word shared by every image worth something: with plain ln(N/df) a collection of one image
 * (or a word in every image) would give zero votes and the image could never be a candidate.
 * Votes are divided by the square root of the image's word count (the length normalisation of cosine tf-idf): an
 * image with 1,000 keypoints would otherwise outvote a faint nebula or a smooth wallpaper with 200 simply by having
 * more words to share, and push the true but sparse image out of the shortlist.
 */
export class InvertedIndex {
  private readonly postings = new Map<number, Postings>();
  private readonly slotOfKey = new Map<number, number>();
  private keyOfSlot: number[] = [];
  /** Distinct words per slot, kept for removal. */
  private wordsOfSlot: Array<Uint32Array | undefined> = [];
  /** sqrt(word count) per slot: the vote normaliser. */
  private normOfSlot: number[] = [];
  private freeSlots: number[] = [];

  get size(): number {
    return this.slotOfKey.size;
  }

  /** Indexes an image's words; re-adding a key replaces its previous words. */
  add(imageKey: number, words: Uint32Array): void {
    if (this.slotOfKey.has(imageKey)) this.remove(imageKey);
    const slot = this.freeSlots.pop() ?? this.keyOfSlot.length;
    this.slotOfKey.set(imageKey, slot);
    this.keyOfSlot[slot] = imageKey;
    const counts = termFrequencies(words);
    this.wordsOfSlot[slot] = Uint32Array.from(counts.keys());
    this.normOfSlot[slot] = Math.sqrt(Math.max(1, words.length));
    for (const [w, tf] of counts) this.append(w, slot, tf);
  }

  remove(imageKey: number): void {
    const slot = this.slotOfKey.get(imageKey);
    if (slot === undefined) return;
    for (const w of this.wordsOfSlot[slot]!) {
      const p = this.postings.get(w)!;
      const at = p.slots.subarray(0, p.length).indexOf(slot);
      // Order within a posting list does not matter: move the last entry into the hole.
      p.length--;
      p.slots[at] = p.slots[p.length];
      p.tf[at] = p.tf[p.length];
      if (p.length === 0) this.postings.delete(w);
    }
    this.slotOfKey.delete(imageKey);
    this.wordsOfSlot[slot] = undefined;
    this.freeSlots.push(slot);
  }

  /** Best `limit` images by length-normalised tf-idf votes, highest first; images sharing no word are left out. */
  candidates(words: Uint32Array, limit: number): Array<{ imageKey: number; votes: number }> {
    const n = this.size;
    if (n === 0 || limit <= 0) return [];
    const votes = new Float64Array(this.keyOfSlot.length);
    for (const [w, tfQuery] of termFrequencies(words)) {
      const p = this.postings.get(w);
      if (!p) continue;
      const idf = Math.log(1 + n / p.length);
      for (let i = 0; i < p.length; i++) votes[p.slots[i]] += idf * Math.min(tfQuery, p.tf[i]);
    }
    for (let slot = 0; slot < votes.length; slot++) if (votes[slot] > 0) votes[slot] /= this.normOfSlot[slot];
    return topK(votes, limit)
      .map((slot) => ({ imageKey: this.keyOfSlot[slot], votes: votes[slot] }));
  }

  private append(word: number, slot: number, tf: number): void {
    let p = this.postings.get(word);
    if (!p) {
      p = { slots: new Uint32Array(INITIAL_POSTINGS), tf: new Uint16Array(INITIAL_POSTINGS), length: 0 };
      this.postings.set(word, p);
    }
    if (p.length === p.slots.length) {
      const slots = new Uint32Array(p.length * 2);
      slots.set(p.slots);
      const tfs = new Uint16Array(p.length * 2);
      tfs.set(p.tf);
      p.slots = slots;
      p.tf = tfs;
    }
    p.slots[p.length] = slot;
    p.tf[p.length] = Math.min(tf, 0xffff);
    p.length++;
  }
}

/** Occurrences of each word in a word list. */
export function termFrequencies(words: Uint32Array): Map<number, number> {
  const counts = new Map<number, number>();
  for (const w of words) counts.set(w, (counts.get(w) ?? 0) + 1);
  return counts;
}

/** Indices of the `k` largest positive values, largest first (partial selection, no full sort of N). */
export function topK(values: Float64Array, k: number): number[] {
  const best: number[] = [];
  let floor = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v <= floor && best.length >= k) continue;
    if (v <= 0) continue;
    let at = best.length;
    while (at > 0 && values[best[at - 1]] < v) at--;
    best.splice(at, 0, i);
    if (best.length > k) best.pop();
    if (best.length >= k) floor = values[best[best.length - 1]];
  }
  return best;
}
