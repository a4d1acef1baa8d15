import { hammingOfHalves, high32, low32, scanByHamming, scanByTversky } from './bits';
import { sumCells } from './cell-average';
import { IMAGE_ONLY_COLOUR_WEIGHT } from './colour-set';
import type { SectionReader } from './inverted-index';
import type { GrayImage } from './types';

/**
 * A whole-image difference hash (64 bits): the image averaged into 9×8 cells, one bit per horizontally adjacent pair
 * (left darker than right). Copies that keep the whole frame (rescaled, recompressed, blurred, brightened) keep nearly
 * all bits, and unlike local features it survives images with no stable corners (smooth gradients, near-flat
 * wallpapers). It cannot follow crops or rotations; the local features do that.
 */
export function differenceHash(img: GrayImage): bigint {
  const { sums, counts } = sumCells(img, 1, 9, 8);
  const mean = (cell: number) => sums[cell] / Math.max(1, counts[cell]);
  let hash = 0n;
  for (let y = 0; y < 8; y++) {
    for (let x = 0; x < 8; x++) hash = (hash << 1n) | (mean(y * 9 + x) < mean(y * 9 + x + 1) ? 1n : 0n);
  }
  return hash;
}

/** Bits in which two hashes differ. */
export function hashDistance(a: bigint, b: bigint): number {
  return hammingOfHalves(high32(a), low32(a), high32(b), low32(b));
}

/**
 * The whole-image signatures of a collection, searched by brute force over two 32-bit halves each: per image its
 * difference hash (`differenceHash`, ~1 ms for 100k images) and its colour set (`colourSet`; 0 for rows stored before
 * colour sets were), 16 bytes an image. Keys are image ids; adding a key again replaces its signatures.
 */
export class GlobalHashIndex {
  private high: Uint32Array = new Uint32Array(64);
  private low: Uint32Array = new Uint32Array(64);
  private colourHigh: Uint32Array = new Uint32Array(64);
  private colourLow: Uint32Array = new Uint32Array(64);
  private keys: number[] = [];
  private readonly slotOf = new Map<number, number>();

  get size(): number {
    return this.keys.length;
  }

  add(key: number, hash: bigint, colours = 0n): void {
    this.remove(key);
    const slot = this.keys.length;
    if (slot === this.high.length) {
      this.high = grow(this.high);
      this.low = grow(this.low);
      this.colourHigh = grow(this.colourHigh);
      this.colourLow = grow(this.colourLow);
    }
    this.high[slot] = high32(hash);
    this.low[slot] = low32(hash);
    this.colourHigh[slot] = high32(colours);
    this.colourLow[slot] = low32(colours);
    this.keys.push(key);
    this.slotOf.set(key, slot);
  }

  remove(key: number): void {
    const slot = this.slotOf.get(key);
    if (slot === undefined) return;
    // Move the last entry into the hole: order does not matter.
    const last = this.keys.length - 1;
    for (const a of [this.high, this.low, this.colourHigh, this.colourLow]) a[slot] = a[last];
    this.keys[slot] = this.keys[last];
    this.slotOf.set(this.keys[slot], slot);
    this.keys.pop();
    this.slotOf.delete(key);
  }

  /** The index as binary sections, for a snapshot read back by `GlobalHashIndex.fromSections`. */
  toSections(): Uint8Array[] {
    const n = this.keys.length;
    const bytes = (a: Uint32Array | Float64Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    return [
      bytes(Uint32Array.of(SNAPSHOT_MAGIC, n)),
      bytes(Float64Array.from(this.keys)),
      ...[this.high, this.low, this.colourHigh, this.colourLow].map((a) => bytes(a.subarray(0, n))),
    ];
  }

  /** Rebuilds an index from `toSections`' output, read back in order by `read(byteLength)`. */
  static async fromSections(read: SectionReader): Promise<GlobalHashIndex> {
    const header = new Uint32Array((await read(8)).buffer);
    if (header[0] !== SNAPSHOT_MAGIC) throw new Error('Not a global hash index snapshot');
    const n = header[1];
    const index = new GlobalHashIndex();
    index.keys = Array.from(new Float64Array((await read(n * 8)).buffer));
    index.high = new Uint32Array((await read(n * 4)).buffer);
    index.low = new Uint32Array((await read(n * 4)).buffer);
    index.colourHigh = new Uint32Array((await read(n * 4)).buffer);
    index.colourLow = new Uint32Array((await read(n * 4)).buffer);
    index.keys.forEach((key, slot) => index.slotOf.set(key, slot));
    return index;
  }

  /**
   * The `count` images (of those `accepts` lets through) whose hash differs from `hash` in at most `maxDistance` bits,
   * nearest first (ties by key). Only the best `count` are kept while scanning: in a collection of a million photos
   * alike in layout (products on white, skies over land), tens of thousands can lie within the distance.
   */
  nearest(hash: bigint, maxDistance: number, count: number, accepts: (key: number) => boolean = () => true): Array<{ key: number; distance: number }> {
    const best: Array<{ key: number; distance: number }> = [];
    if (count <= 0) return best;
    const before = (a: { key: number; distance: number }, b: { key: number; distance: number }) => a.distance < b.distance || (a.distance === b.distance && a.key < b.key);
    scanByHamming(this.high, this.low, this.keys.length, high32(hash), low32(hash), maxDistance, (slot, distance) => {
      keepBest(best, { key: this.keys[slot], distance }, count, before, accepts);
      return best.length === count ? best[count - 1].distance : maxDistance;
    });
    return best;
  }

  /**
   * The `count` images whose colour sets are most alike `colours` (`colourLikeness`), at least `minLikeness`, most
   * alike first (ties by key), of those `accepts` lets through.
   */
  alikeInColour(colours: bigint, count: number, minLikeness: number, accepts: (key: number) => boolean = () => true): Array<{ key: number; likeness: number }> {
    const best: Array<{ key: number; likeness: number }> = [];
    if (count <= 0) return best;
    const before = (a: { key: number; likeness: number }, b: { key: number; likeness: number }) => a.likeness > b.likeness || (a.likeness === b.likeness && a.key < b.key);
    scanByTversky(this.colourHigh, this.colourLow, this.keys.length, high32(colours), low32(colours), IMAGE_ONLY_COLOUR_WEIGHT, minLikeness, (slot, likeness) => {
      keepBest(best, { key: this.keys[slot], likeness }, count, before, accepts);
      return best.length === count ? best[count - 1].likeness : minLikeness;
    });
    return best;
  }
}

/**
 * Puts `entry` in its place in `best` (ordered by `before`, at most `count` long) when it belongs among them and
 * `accepts` lets its key through (asked only then: a path filter costs a lookup).
 */
function keepBest<T extends { key: number }>(best: T[], entry: T, count: number, before: (a: T, b: T) => boolean, accepts: (key: number) => boolean): void {
  if (best.length >= count && !before(entry, best[best.length - 1])) return;
  if (!accepts(entry.key)) return;
  let at = best.length;
  while (at > 0 && before(entry, best[at - 1])) at--;
  best.splice(at, 0, entry);
  if (best.length > count) best.pop();
}

/** "LGH2": Loupe Global Hashes, snapshot layout 2 (with colour sets). */
const SNAPSHOT_MAGIC = 0x3248474c;

function grow(a: Uint32Array): Uint32Array {
  const bigger = new Uint32Array(Math.max(64, a.length * 2));
  bigger.set(a);
  return bigger;
}
