import { TARGET_FEATURES } from './features';
import { SPREAD_GRID, cellOf } from './spread';
import type { Features } from './types';

/**
 * Occupied grid cells counted as fully spread: half the grid. A label shot on a plain background still
 * has a healthy fingerprint; only images whose keypoints sit in a small corner lose health.
 */
const FULLY_SPREAD_CELLS = (SPREAD_GRID * SPREAD_GRID) / 2;

/**
 * Fingerprint health 0-100, rounded to 0.1: the share of `TARGET_FEATURES` found, times the share of
 * grid cells holding a keypoint (saturating at `FULLY_SPREAD_CELLS`).
 */
export function fingerprintHealth(f: Features): number {
  if (f.count === 0) return 0;
  const occupied = new Set<number>();
  for (let i = 0; i < f.count; i++) occupied.add(cellOf(f.xy[2 * i], f.xy[2 * i + 1], f.width, f.height));
  const found = Math.min(1, f.count / TARGET_FEATURES);
  const spread = Math.min(1, occupied.size / FULLY_SPREAD_CELLS);
  return Math.round(found * spread * 1000) / 10;
}
