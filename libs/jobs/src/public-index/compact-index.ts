import { termFrequencies, topK } from '@loupe/fingerprint';

/** First capacity (bytes) of a word's posting buffers; they double as they fill and are trimmed by `trim()`. */
const INITIAL_BYTES = 16;

/** One word's postings: image slots as varint gaps (slots only grow), and a term frequency byte per posting. */
interface Postings {
  gaps: Uint8Array;
  gapBytes: number;
  tf: Uint8Array;
  count: number;
  lastSlot: number;
}

/**
 * The public index's per-shard search structure: the same tf-idf voting as InvertedIndex in @loupe/fingerprint
 * (idf = ln(1 + N/df), votes += idf * min(tf_query, tf_image), divided by sqrt(word count); identical scores), in
 * about a quarter of the memory, which is what decides how many images a shard owner can hold.
 *
 * It can be this small because the public index only grows: images are never removed or replaced (identical bytes
 * are one image, a new backlink changes no words). So slots are handed out in increasing order and every posting
 * list is sorted by construction: slots are stored as varint gaps (1-2 bytes instead of 4), term frequencies in a
 * byte (capped at 255; an image has at most ~1,000 features), and no per-image word lists are kept for removal.
 */
export class CompactShardIndex {
  private readonly postings = new Map<number, Postings>();
  /** Keys seen: a load and the change log can both deliver an image committed during the load. */
  private readonly keys = new Set<number>();
  private keyOfSlot = new Float64Array(64);
  private normOfSlot = new Float64Array(64);
  private slots = 0;

  get size(): number {
    return this.slots;
  }

  /** Adds an image; an image already present is left as it is (its words never change). */
  add(imageKey: number, words: Uint32Array): void {
    if (this.keys.has(imageKey)) return;
    this.keys.add(imageKey);
    const slot = this.slots++;
    if (slot === this.keyOfSlot.length) {
      this.keyOfSlot = grow(this.keyOfSlot, slot * 2);
      this.normOfSlot = grow(this.normOfSlot, slot * 2);
    }
    this.keyOfSlot[slot] = imageKey;
    this.normOfSlot[slot] = Math.sqrt(Math.max(1, words.length));
    for (const [w, tf] of termFrequencies(words)) this.append(w, slot, tf);
  }

  /** Best `limit` images by length-normalised tf-idf votes, highest first; images sharing no word are left out. */
  candidates(words: Uint32Array, limit: number): Array<{ imageKey: number; votes: number }> {
    const n = this.slots;
    if (n === 0 || limit <= 0) return [];
    const votes = new Float64Array(n);
    for (const [w, tfQuery] of termFrequencies(words)) {
      const p = this.postings.get(w);
      if (!p) continue;
      const idf = Math.log(1 + n / p.count);
      const { gaps, tf } = p;
      let at = 0;
      let slot = -1;
      for (let i = 0; i < p.count; i++) {
        let b = gaps[at++];
        let gap = b & 0x7f;
        for (let scale = 128; b & 0x80; scale *= 128) {
          b = gaps[at++];
          gap += (b & 0x7f) * scale;
        }
        slot += gap;
        votes[slot] += idf * Math.min(tfQuery, tf[i]);
      }
    }
    for (let slot = 0; slot < n; slot++) if (votes[slot] > 0) votes[slot] /= this.normOfSlot[slot];
    return topK(votes, limit).map((slot) => ({ imageKey: this.keyOfSlot[slot], votes: votes[slot] }));
  }

  /** Gives back the doubling slack of every buffer (after a bulk load; later additions grow them again). */
  trim(): void {
    for (const p of this.postings.values()) {
      p.gaps = p.gaps.slice(0, p.gapBytes);
      p.tf = p.tf.slice(0, p.count);
    }
    this.keyOfSlot = this.keyOfSlot.slice(0, this.slots);
    this.normOfSlot = this.normOfSlot.slice(0, this.slots);
  }

  /** Bytes held in typed arrays (postings, keys, norms): the structure's memory apart from per-object overhead. */
  get typedBytes(): number {
    let bytes = this.keyOfSlot.byteLength + this.normOfSlot.byteLength;
    for (const p of this.postings.values()) bytes += p.gaps.byteLength + p.tf.byteLength;
    return bytes;
  }

  private append(word: number, slot: number, tf: number): void {
    let p = this.postings.get(word);
    if (!p) {
      p = { gaps: new Uint8Array(INITIAL_BYTES), gapBytes: 0, tf: new Uint8Array(INITIAL_BYTES), count: 0, lastSlot: -1 };
      this.postings.set(word, p);
    }
    // A varint of a 32-bit gap takes at most 5 bytes.
    if (p.gapBytes + 5 > p.gaps.length) p.gaps = grow(p.gaps, Math.max(p.gaps.length * 2, p.gapBytes + 5));
    if (p.count === p.tf.length) p.tf = grow(p.tf, p.tf.length * 2);
    let gap = slot - p.lastSlot;
    while (gap >= 0x80) {
      p.gaps[p.gapBytes++] = (gap & 0x7f) | 0x80;
      gap = Math.floor(gap / 128);
    }
    p.gaps[p.gapBytes++] = gap;
    p.tf[p.count++] = Math.min(tf, 0xff);
    p.lastSlot = slot;
  }
}

function grow<T extends Uint8Array | Float64Array>(array: T, length: number): T {
  const next = new (array.constructor as new (n: number) => T)(length);
  next.set(array);
  return next;
}
