/**
 * Point fields: images that are mostly flat with scattered small bright or dark points, such as a night sky. Two of
 * them share their colours and their layout (a bright galaxy on black) whatever stars they hold, so a placement by
 * pixels, which compares colours at a small size, cannot tell them apart; their points can. A copy keeps its stars
 * where they were, another sky has its own.
 *
 * Measured with placements of 100 astronomy photos (`tools/bench/match/sky-placements.ts`, docs/benchmarks.md, session
 * 43): upright copies turned 15-20° and crops of 25 and 50 %, each placed in its own image and in eight others. All 500
 * placed in their own image are confirmed, as before; of the 4,000 in other images, the colour check had confirmed 4
 * (and the million-image benchmark's false positive), none now. In a probe of the same 500 true placements, 329 were
 * judged as point fields, and in those at least 80 % of the points coincided and the collection image's part kept at
 * least 39 % as many. No placement of the matching benchmark's hard-copy families (patterns, smooth artwork, logos) is
 * a point field: their details are lines, edges and glyphs, whose points are not isolated.
 */

/** Strength (grey levels of the difference of Gaussians at σ 1 and 4) of a point worth comparing: a star, not noise. */
const POINT_MIN_STRENGTH = 25;
export const POINT_SIGMA = 1;
export const SURROUND_SIGMA = 4;
/**
 * A point is isolated when the response on a ring of ISOLATION_RADIUS px around it stays under this share of its own:
 * a line or an edge continues through its points.
 */
const ISOLATION = 0.5;
const ISOLATION_RADIUS = 4;
/** The strongest points compared per image. */
const POINTS_KEPT = 40;
/** Fewest points of the query for the pair to be judged as point fields. */
const POINT_FIELD_MIN_POINTS = 8;
/**
 * Least number of points of the collection image's part, as a share of the query's: a copy keeps its stars, though the
 * collection image, read at half its stored size and enlarged onto a crop, shows fewer (true placements kept 39 % or
 * more; a night-lights map that a star field was placed in, 7 %).
 */
const POINT_FIELD_MIN_KEPT = 0.2;
/** Least share of the overlap where the query's gradient is under FLAT_GRADIENT grey levels: a sky, not a texture. */
const POINT_FIELD_MIN_FLAT = 0.5;
const FLAT_GRADIENT = 3;
/**
 * Points coincide within this distance (px), after the best common scale (SCALE_STEPS about the overlap's centre) and
 * shift of at most MAX_SHIFT px: a placement is searched at a coarser size, and a bright galaxy can draw its scale a few
 * percent off (7.5 % for a half of a drawn sky).
 */
const COINCIDE_RADIUS = 3;
const MAX_SHIFT = 8;
const SCALE_STEPS = Array.from({ length: 21 }, (_, k) => 0.9 + k * 0.01);
/** Shifts counted per scale, the most voted. */
const SHIFTS_COUNTED = 3;
/** Vote cells (of COINCIDE_RADIUS px) per row of the shifts searched. */
const SHIFT_CELLS = 2 * Math.ceil(MAX_SHIFT / COINCIDE_RADIUS) + 1;
/** Least share of the points (of the image with fewer) that coincide in one image's copy (copies: 80 % or more). */
const POINT_FIELD_MIN_COINCIDING = 0.4;

export interface DetailPoint {
  x: number;
  y: number;
  strength: number;
}

/**
 * The strongest isolated points (`POINTS_KEPT` at most) of a difference-of-Gaussians response `dog` (absolute values)
 * over the pixels where `mask` is set: local maxima of at least POINT_MIN_STRENGTH whose ring stays under ISOLATION of
 * them.
 */
export function isolatedPoints(dog: Float32Array, mask: Uint8Array, width: number, height: number): DetailPoint[] {
  const points: DetailPoint[] = [];
  const ring = ringOffsets(width);
  const border = ISOLATION_RADIUS;
  for (let y = border; y < height - border; y++) {
    for (let x = border; x < width - border; x++) {
      const i = y * width + x;
      const v = dog[i];
      if (!mask[i] || v < POINT_MIN_STRENGTH || !localMaximum(dog, i, width)) continue;
      let around = 0;
      for (const o of ring) around = Math.max(around, dog[i + o]);
      if (around <= ISOLATION * v) points.push({ x, y, strength: v });
    }
  }
  return points.sort((a, b) => b.strength - a.strength).slice(0, POINTS_KEPT);
}

function localMaximum(dog: Float32Array, i: number, width: number): boolean {
  for (let dy = -2; dy <= 2; dy++) {
    for (let dx = -2; dx <= 2; dx++) {
      if ((dx !== 0 || dy !== 0) && dog[i + dy * width + dx] > dog[i]) return false;
    }
  }
  return true;
}

/** Index offsets of 16 pixels on the isolation ring. */
function ringOffsets(width: number): number[] {
  return Array.from({ length: 16 }, (_, k) => {
    const angle = (k * Math.PI) / 8;
    return Math.round(ISOLATION_RADIUS * Math.sin(angle)) * width + Math.round(ISOLATION_RADIUS * Math.cos(angle));
  });
}

/**
 * How many of `a` have a point of `b` within COINCIDE_RADIUS once `b` is scaled about `centre` by one of SCALE_STEPS
 * and shifted by up to MAX_SHIFT px, at the scale and shift that make most. Each scale's shifts are voted for by every
 * pair of points (in cells of COINCIDE_RADIUS) and only its most voted SHIFTS_COUNTED are counted.
 */
export function coincidingPoints(a: readonly DetailPoint[], b: readonly DetailPoint[], centre: { x: number; y: number }): number {
  let best = 0;
  for (const scale of SCALE_STEPS) {
    const placed = b.map((q) => ({ x: centre.x + scale * (q.x - centre.x), y: centre.y + scale * (q.y - centre.y) }));
    const votes = new Map<number, number>();
    for (const p of a) {
      for (const q of placed) {
        const dx = p.x - q.x;
        const dy = p.y - q.y;
        if (Math.abs(dx) > MAX_SHIFT || Math.abs(dy) > MAX_SHIFT) continue;
        const cell = Math.round(dy / COINCIDE_RADIUS) * SHIFT_CELLS + Math.round(dx / COINCIDE_RADIUS);
        votes.set(cell, (votes.get(cell) ?? 0) + 1);
      }
    }
    const shifts = [...votes.entries()].sort((x, y) => y[1] - x[1]).slice(0, SHIFTS_COUNTED);
    for (const [cell] of shifts) {
      const row = Math.round(cell / SHIFT_CELLS);
      const shift = { x: (cell - row * SHIFT_CELLS) * COINCIDE_RADIUS, y: row * COINCIDE_RADIUS };
      best = Math.max(best, countCoinciding(a, placed, shift));
    }
  }
  return best;
}

/** How many of `a` have a point of `b`, moved by `shift`, within COINCIDE_RADIUS. */
function countCoinciding(a: readonly DetailPoint[], b: ReadonlyArray<{ x: number; y: number }>, shift: { x: number; y: number }): number {
  const r2 = COINCIDE_RADIUS * COINCIDE_RADIUS;
  let n = 0;
  for (const p of a) {
    if (b.some((q) => (q.x + shift.x - p.x) ** 2 + (q.y + shift.y - p.y) ** 2 <= r2)) n++;
  }
  return n;
}

/** Whether the query's gradients (`queryGradients`) are under FLAT_GRADIENT in POINT_FIELD_MIN_FLAT of the overlap (`mask`). */
export function mostlyFlat(queryGradients: Float32Array, mask: Uint8Array): boolean {
  let overlap = 0;
  let flat = 0;
  for (let i = 0; i < mask.length; i++) {
    if (!mask[i]) continue;
    overlap++;
    if (queryGradients[i] < FLAT_GRADIENT) flat++;
  }
  return overlap > 0 && flat / overlap >= POINT_FIELD_MIN_FLAT;
}

/** Whether a mostly flat image's isolated points are enough to judge it as a point field (POINT_FIELD_MIN_POINTS). */
export function isPointField(points: readonly DetailPoint[]): boolean {
  return points.length >= POINT_FIELD_MIN_POINTS;
}

/**
 * Whether two aligned images' isolated points say they are different point fields. Judged when the query has
 * POINT_FIELD_MIN_POINTS or more (fewer: false): the collection image's part has under POINT_FIELD_MIN_KEPT as many, or
 * under POINT_FIELD_MIN_COINCIDING of the points of the one with fewer coincide (`coincidingPoints` about `centre`).
 */
export function pointFieldsDiffer(queryPoints: readonly DetailPoint[], targetPoints: readonly DetailPoint[], centre: { x: number; y: number }): boolean {
  if (!isPointField(queryPoints)) return false;
  if (targetPoints.length < POINT_FIELD_MIN_KEPT * queryPoints.length) return true;
  return coincidingPoints(queryPoints, targetPoints, centre) < POINT_FIELD_MIN_COINCIDING * Math.min(queryPoints.length, targetPoints.length);
}
