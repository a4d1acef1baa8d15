import { DESCRIPTOR_BYTES } from './hamming';
import type { Features } from './types';
import { nearestTwoInCells, NO_DISTANCE } from './wasm/hamming-kernel';

/**
 * Target keypoints grouped by cell (a counting sort): `order` lists keypoint indices cell by cell, `ranges` the
 * [start, end) of each dense cell in that order and `denseCell` maps a cell to its dense index.
 */
interface CellGroups {
  order: Int32Array;
  ranges: Int32Array;
  denseCell: Int32Array;
}

function groupByCell(cells: Int32Array): CellGroups {
  let maxCell = 0;
  for (const cell of cells) maxCell = Math.max(maxCell, cell);
  const counts = new Int32Array(maxCell + 1);
  for (const cell of cells) counts[cell]++;
  const denseCell = new Int32Array(maxCell + 1).fill(-1);
  const start = new Int32Array(maxCell + 1);
  const ranges: number[] = [];
  let at = 0;
  for (let cell = 0; cell <= maxCell; cell++) {
    if (counts[cell] === 0) continue;
    denseCell[cell] = ranges.length / 2;
    start[cell] = at;
    ranges.push(at, at + counts[cell]);
    at += counts[cell];
  }
  const order = new Int32Array(cells.length);
  for (let j = 0; j < cells.length; j++) order[start[cells[j]]++] = j;
  return { order, ranges: Int32Array.from(ranges), denseCell };
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
  const groups = groupByCell(targetCells.subarray(0, target.count));
  const cells = new Int32Array(query.count);
  for (let i = 0; i < query.count; i++) cells[i] = queryCells[i] < groups.denseCell.length ? groups.denseCell[queryCells[i]] : -1;
  const nearest = nearestTwoInCells(query.descriptors, cells, target.descriptors.subarray(0, target.count * DESCRIPTOR_BYTES), groups.ranges, groups.order);
  const pairs: Array<[number, number]> = [];
  for (let i = 0; i < query.count; i++) {
    const position = nearest.position[i];
    if (position < 0) continue;
    const best = nearest.best[i];
    const second = nearest.second[i];
    const accepted = opts.ratio === null || second === NO_DISTANCE ? best <= opts.loneMaxDistance : best < opts.ratio * second;
    if (accepted) pairs.push([i, groups.order[position]]);
  }
  return pairs;
}
