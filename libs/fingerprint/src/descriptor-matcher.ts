import { DESCRIPTOR_BYTES } from './hamming';
import type { Features } from './types';

const WORDS = DESCRIPTOR_BYTES / 4;

/** Descriptors as 32-bit words (8 per descriptor), so a distance is 8 popcounts instead of 32 table lookups. */
const wordsOf = new WeakMap<Features, Uint32Array>();

function descriptorWords(f: Features): Uint32Array {
  let w = wordsOf.get(f);
  if (!w) {
    // Copy: the byte array may sit at an offset that is not a multiple of 4 inside a deserialised buffer.
    w = new Uint32Array(f.count * WORDS);
    new Uint8Array(w.buffer).set(f.descriptors.subarray(0, f.count * DESCRIPTOR_BYTES));
    wordsOf.set(f, w);
  }
  return w;
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

function distance(a: Uint32Array, i: number, b: Uint32Array, j: number): number {
  const ao = i * WORDS;
  const bo = j * WORDS;
  return (
    popcount(a[ao] ^ b[bo]) +
    popcount(a[ao + 1] ^ b[bo + 1]) +
    popcount(a[ao + 2] ^ b[bo + 2]) +
    popcount(a[ao + 3] ^ b[bo + 3]) +
    popcount(a[ao + 4] ^ b[bo + 4]) +
    popcount(a[ao + 5] ^ b[bo + 5]) +
    popcount(a[ao + 6] ^ b[bo + 6]) +
    popcount(a[ao + 7] ^ b[bo + 7])
  );
}

/** Target keypoints grouped by cell: `order` lists keypoint indices cell by cell, `ranges` maps a cell to its slice. */
interface CellGroups {
  order: Int32Array;
  ranges: Map<number, [number, number]>;
}

function groupByCell(cells: Int32Array): CellGroups {
  const order = Int32Array.from(cells.keys()).sort((a, b) => cells[a] - cells[b]);
  const ranges = new Map<number, [number, number]>();
  let start = 0;
  for (let k = 1; k <= order.length; k++) {
    if (k === order.length || cells[order[k]] !== cells[order[start]]) {
      ranges.set(cells[order[start]], [start, k]);
      start = k;
    }
  }
  return { order, ranges };
}

export interface CellMatchOptions {
  /**
   * Lowe's ratio: the best distance must be below ratio × the second best. Null: no ratio test, the best is kept when
   * within `loneMaxDistance` (repeated patterns, where the second best is an equally good copy of the same motif).
   */
  ratio: number | null;
  /** Largest distance accepted when a cell holds a single candidate (no second best to compare with), or without ratio test. */
  loneMaxDistance: number;
}

/**
 * [queryIndex, targetIndex] pairs passing the ratio test, where each query descriptor is compared only with the target
 * descriptors of its own cell (`queryCells[i]` against `targetCells`), not with all of them.
 */
export function cellRatioMatches(query: Features, queryCells: Int32Array, target: Features, targetCells: Int32Array, opts: CellMatchOptions): Array<[number, number]> {
  const q = descriptorWords(query);
  const t = descriptorWords(target);
  const groups = groupByCell(targetCells);
  const pairs: Array<[number, number]> = [];
  for (let i = 0; i < query.count; i++) {
    const range = groups.ranges.get(queryCells[i]);
    if (!range) continue;
    let best = Infinity;
    let second = Infinity;
    let bestJ = -1;
    for (let k = range[0]; k < range[1]; k++) {
      const j = groups.order[k];
      const d = distance(q, i, t, j);
      if (d < best) {
        second = best;
        best = d;
        bestJ = j;
      } else if (d < second) second = d;
    }
    if (bestJ < 0) continue;
    const accepted = opts.ratio === null || second === Infinity ? best <= opts.loneMaxDistance : best < opts.ratio * second;
    if (accepted) pairs.push([i, bestJ]);
  }
  return pairs;
}
