/**
 * Cells per side of the selection grid. 8x8 = 64 cells of ~75 px on a 600 px image: fine enough that a
 * 25 % crop still covers 16 cells of its own keypoints, coarse enough that each cell holds a dozen.
 */
export const SPREAD_GRID = 8;

/** Grid cell of a point, row-major. */
export function cellOf(x: number, y: number, width: number, height: number): number {
  const cx = Math.min(SPREAD_GRID - 1, Math.max(0, Math.floor((x / width) * SPREAD_GRID)));
  const cy = Math.min(SPREAD_GRID - 1, Math.max(0, Math.floor((y / height) * SPREAD_GRID)));
  return cy * SPREAD_GRID + cx;
}

/**
 * Picks up to `max` keypoint indices, round-robin over grid cells by rank of response: every textured
 * cell gets its strongest points before any cell gets more. Keeps crops matchable when the strongest
 * corners of the whole image sit in one busy region.
 */
export function selectSpread(xs: Float32Array, ys: Float32Array, responses: Float32Array, width: number, height: number, max: number): number[] {
  const n = xs.length;
  if (n <= max) return Array.from({ length: n }, (_, i) => i);
  const cells: number[][] = Array.from({ length: SPREAD_GRID * SPREAD_GRID }, () => []);
  for (let i = 0; i < n; i++) cells[cellOf(xs[i], ys[i], width, height)].push(i);
  for (const c of cells) c.sort((a, b) => responses[b] - responses[a]);
  const chosen: number[] = [];
  for (let rank = 0; chosen.length < max; rank++) {
    const tier = cells.filter((c) => c.length > rank).map((c) => c[rank]);
    tier.sort((a, b) => responses[b] - responses[a]);
    for (const k of tier) {
      if (chosen.length >= max) break;
      chosen.push(k);
    }
  }
  return chosen;
}
