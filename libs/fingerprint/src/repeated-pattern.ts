import type { Homography } from './geometry';
import { DESCRIPTOR_BYTES, descriptorWords, hammingWithin } from './hamming';
import { leastSquares, pairPoints } from './similarity-ransac';
import type { Features } from './types';
import { nearestTwoInCells } from './wasm/hamming-kernel';

/**
 * Pivots looked at: each alone fixes a similarity (orientation and size of its two keypoints), right only when the
 * pair is (an exact copy of a motif at a lattice shift is right too). Each is first scored by the guided matches it finds
 * in its first ring, which is cheap; only the best-supported PIVOTS_GROWN are grown to the whole image.
 */
const PIVOTS = 160;
const PIVOTS_GROWN = 12;
/** Least (inside-weighted) first-ring support of a pivot worth growing: 3 matches fix a similarity with a check. */
const MIN_SUPPORT = 2;
/**
 * Growth rings (query px from the pivot): the pivot's similarity is only roughly right (ORB sizes come in pyramid steps
 * of 1.2×, orientations are ±10° noisy), so keypoints are matched near the pivot first, the similarity refitted to them,
 * and the ring widened: the error at each ring stays a fraction of a motif, so the right copy is chosen.
 */
const RINGS = [48, 96, 192, 384, Infinity];
/** Search radius at a ring, as a share of its distance from the pivot (the rough fit's drift), at least the tolerance. */
const RING_RADIUS_SHARE = 0.3;
/** Largest descriptor distance of a guided match: true ORB matches measured under 50 bits, unrelated ones ~128. */
const GUIDED_MAX_DISTANCE = 48;
/** Target keypoints are bucketed in square cells of this side (px) for radius lookups. */
const GRID = 16;
/** A pivot whose fit keeps this many inliers ends the search: more pivots would not change the answer. */
const ENOUGH_INLIERS = 80;

export interface RepeatedFit {
  /** Target → query similarity as a 3×3 homography. */
  transform: Homography;
  /** One pair per query keypoint and per target keypoint, within `tolerance` of the transform. */
  inliers: Array<[number, number]>;
}

type Model = [number, number, number, number];

/**
 * Similarity fit by guided matching, for images made of a repeated motif, where descriptor matching alone cannot tell
 * which copy a keypoint belongs to (the ratio test refuses them all). From each pivot pair ([query, target], best
 * descriptor distance first), keypoints are matched outward in rings: each query keypoint is projected into the target
 * by the current fit and paired with the nearest-descriptor target keypoint around that spot (within
 * GUIDED_MAX_DISTANCE bits), the fit refitted by least squares, the ring widened. The final pass keeps one-to-one
 * pairs within `tolerance` (px). The pivot with most inliers wins; null when none keeps 3.
 */
export function repeatedPatternFit(query: Features, target: Features, pivots: ReadonlyArray<[number, number]>, tolerance: number): RepeatedFit | null {
  const grid = new TargetGrid(query, target);
  const supported = pivots
    .slice(0, PIVOTS)
    .map(([q0, t0]) => {
      const model = pivotModel(query, target, q0, t0);
      // Of the lattice shifts a pattern allows, the right one (or the one a crop was taken at) puts the whole query
      // inside the collection image; a shift that leaves part of it outside matches the pixels only partly.
      return { q0, t0, support: ringSupport(query, target, grid, model, q0, RINGS[0], tolerance) * insideShare(query, target, model) };
    })
    .filter((p) => p.support >= MIN_SUPPORT)
    .sort((x, y) => y.support - x.support)
    .slice(0, PIVOTS_GROWN);
  let best: RepeatedFit | null = null;
  if (supported.length > 0) grid.skipUnalike();
  for (const { q0, t0 } of supported) {
    const fit = growFrom(query, target, grid, q0, t0, tolerance);
    if (fit && (!best || fit.inliers.length > best.inliers.length)) best = fit;
    if (best && best.inliers.length >= ENOUGH_INLIERS) break;
  }
  return best;
}

/** The similarity a single pair fixes: rotation from its orientations, scale from its sizes, then its points. */
function pivotModel(query: Features, target: Features, q0: number, t0: number): Model {
  const scale = query.meta[4 * q0] / target.meta[4 * t0];
  const turn = ((query.meta[4 * q0 + 1] - target.meta[4 * t0 + 1]) * Math.PI) / 180;
  const a = scale * Math.cos(turn);
  const b = scale * Math.sin(turn);
  return [a, b, query.xy[2 * q0] - (a * target.xy[2 * t0] - b * target.xy[2 * t0 + 1]), query.xy[2 * q0 + 1] - (b * target.xy[2 * t0] + a * target.xy[2 * t0 + 1])];
}

/** Share of a 5×5 grid of query points that the model (target → query) maps inside the target. */
function insideShare(query: Features, target: Features, [a, b, tx, ty]: Model): number {
  const n2 = a * a + b * b;
  let inside = 0;
  for (let i = 0; i < 5; i++) {
    for (let j = 0; j < 5; j++) {
      const dx = (query.width * (i + 0.5)) / 5 - tx;
      const dy = (query.height * (j + 0.5)) / 5 - ty;
      const x = (a * dx + b * dy) / n2;
      const y = (-b * dx + a * dy) / n2;
      if (x >= 0 && y >= 0 && x <= target.width && y <= target.height) inside++;
    }
  }
  return inside / 25;
}

/** Guided matches of the query keypoints within `ring` px of the pivot's query keypoint. */
function ringSupport(query: Features, target: Features, grid: TargetGrid, model: Model, q0: number, ring: number, tolerance: number): number {
  const qx0 = query.xy[2 * q0];
  const qy0 = query.xy[2 * q0 + 1];
  let support = 0;
  for (let q = 0; q < query.count; q++) {
    const dx = query.xy[2 * q] - qx0;
    const dy = query.xy[2 * q + 1] - qy0;
    if (dx * dx + dy * dy > ring * ring) continue;
    if (guidedMatch(query, grid, model, q, Math.max(tolerance, RING_RADIUS_SHARE * Math.sqrt(dx * dx + dy * dy))) >= 0) support++;
  }
  return support;
}

function growFrom(query: Features, target: Features, grid: TargetGrid, q0: number, t0: number, tolerance: number): RepeatedFit | null {
  const qx0 = query.xy[2 * q0];
  const qy0 = query.xy[2 * q0 + 1];
  let model = pivotModel(query, target, q0, t0);
  let pairs: Array<[number, number]> = [];
  for (const ring of RINGS) {
    const found: Array<[number, number]> = [];
    for (let q = 0; q < query.count; q++) {
      const ex = query.xy[2 * q] - qx0;
      const ey = query.xy[2 * q + 1] - qy0;
      const dist = Math.sqrt(ex * ex + ey * ey);
      if (dist > ring) continue;
      const radius = Math.max(tolerance, RING_RADIUS_SHARE * Math.min(dist, ring === Infinity ? dist : ring) * (pairs.length < 3 ? 1 : 0.5));
      const t = guidedMatch(query, grid, model, q, radius);
      if (t >= 0) found.push([q, t]);
    }
    const next = oneToOne(found, query, target, model);
    if (next.length < 3) return null;
    const refit = fitPairs(query, target, next);
    if (!refit) return null;
    model = refit;
    pairs = next;
  }
  // Final pass: every query keypoint at the tolerance of the fitted similarity.
  const final: Array<[number, number]> = [];
  for (let q = 0; q < query.count; q++) {
    const t = guidedMatch(query, grid, model, q, tolerance);
    if (t >= 0) final.push([q, t]);
  }
  let inliers = oneToOne(final, query, target, model);
  if (inliers.length < 3) return null;
  // Refitted to the final inliers, whose count then stands for this fit.
  model = fitPairs(query, target, inliers) ?? model;
  inliers = oneToOne(inliers.filter(([q, t]) => residual2(query, target, model, q, t) <= tolerance * tolerance), query, target, model);
  if (inliers.length < 3) return null;
  const [fa, fb, tx, ty] = model;
  return { transform: [fa, -fb, tx, fb, fa, ty, 0, 0, 1], inliers };
}

/**
 * The target keypoint nearest query keypoint q's projection, within `radius`, whose descriptor is within
 * GUIDED_MAX_DISTANCE bits; -1 when none. Position decides, not descriptor distance: a motif's copies have about equal
 * descriptors, and the one where the fit points is the right one.
 */
function guidedMatch(query: Features, grid: TargetGrid, [a, b, tx, ty]: Model, q: number, radius: number): number {
  const n2 = a * a + b * b;
  const dx = query.xy[2 * q] - tx;
  const dy = query.xy[2 * q + 1] - ty;
  return grid.nearestMatch((a * dx + b * dy) / n2, (-b * dx + a * dy) / n2, radius / Math.sqrt(n2), q);
}

function residual2(query: Features, target: Features, [a, b, tx, ty]: Model, q: number, t: number): number {
  const x = target.xy[2 * t];
  const y = target.xy[2 * t + 1];
  const dx = a * x - b * y + tx - query.xy[2 * q];
  const dy = b * x + a * y + ty - query.xy[2 * q + 1];
  return dx * dx + dy * dy;
}

/** Keeps each target keypoint's closest pair only (each query keypoint has one already). */
function oneToOne(pairs: Array<[number, number]>, query: Features, target: Features, model: Model): Array<[number, number]> {
  const ranked = pairs.map((p) => ({ p, d: residual2(query, target, model, p[0], p[1]) })).sort((x, y) => x.d - y.d);
  const used = new Set<number>();
  const out: Array<[number, number]> = [];
  for (const { p } of ranked) {
    if (used.has(p[1])) continue;
    used.add(p[1]);
    out.push(p);
  }
  return out;
}

function fitPairs(query: Features, target: Features, pairs: Array<[number, number]>): Model | null {
  const { from, to } = pairPoints(query, target, pairs);
  return leastSquares(from, to, pairs.map((_, k) => k));
}

/** Target keypoints bucketed by position, for the keypoints around a point; both descriptor sets as words. */
export class TargetGrid {
  private readonly cols: number;
  private readonly rows: number;
  private readonly start: Int32Array;
  private readonly items: Int32Array;
  /** Per query keypoint, once `skipUnalike` was asked: 1 when some target keypoint is within GUIDED_MAX_DISTANCE bits. */
  private hasAlike: Uint8Array | null = null;
  readonly queryWords: Uint32Array;
  readonly targetWords: Uint32Array;

  constructor(
    private readonly query: Features,
    private readonly target: Features,
  ) {
    this.queryWords = descriptorWords(query.descriptors);
    this.targetWords = descriptorWords(target.descriptors);
    this.cols = Math.max(1, Math.ceil(target.width / GRID));
    this.rows = Math.max(1, Math.ceil(target.height / GRID));
    const cellOf = (t: number) => this.cell(target.xy[2 * t], target.xy[2 * t + 1]);
    this.start = new Int32Array(this.cols * this.rows + 1);
    for (let t = 0; t < target.count; t++) this.start[cellOf(t) + 1]++;
    for (let c = 0; c < this.cols * this.rows; c++) this.start[c + 1] += this.start[c];
    const fill = this.start.slice(0, -1);
    this.items = new Int32Array(target.count);
    for (let t = 0; t < target.count; t++) this.items[fill[cellOf(t)]++] = t;
  }

  /**
   * From now on, a lookup of a query keypoint that has no target keypoint within GUIDED_MAX_DISTANCE bits anywhere ends
   * at once, with the answer the cells would give. Most keypoints of an unrelated pair have none, and growth looks each
   * up at every ring of every pivot, across up to ~200 cells in the outer rings; one nearest-neighbour pass of the
   * Hamming kernel (a millisecond for 1,000 × 1,000) tells which. Asked for only when some pivot is grown, so that a
   * pair whose pivots all lack first-ring support does not pay for it.
   */
  skipUnalike(): void {
    if (this.hasAlike) return;
    const everyTarget = Int32Array.of(0, this.target.count);
    const nearest = nearestTwoInCells(this.query.descriptors, new Int32Array(this.query.count), this.target.descriptors.subarray(0, this.target.count * DESCRIPTOR_BYTES), everyTarget);
    this.hasAlike = new Uint8Array(nearest.best.length);
    for (let i = 0; i < nearest.best.length; i++) this.hasAlike[i] = nearest.best[i] <= GUIDED_MAX_DISTANCE ? 1 : 0;
  }

  private cell(x: number, y: number): number {
    const cx = Math.min(this.cols - 1, Math.max(0, Math.floor(x / GRID)));
    const cy = Math.min(this.rows - 1, Math.max(0, Math.floor(y / GRID)));
    return cy * this.cols + cx;
  }

  /**
   * The target keypoint nearest (x, y) within `radius` whose descriptor is within GUIDED_MAX_DISTANCE bits of query
   * keypoint q's; -1 when none. The first found of equally near ones, in cell order.
   */
  nearestMatch(x: number, y: number, radius: number, q: number): number {
    if (this.hasAlike && !this.hasAlike[q]) return -1;
    if (x < -radius || y < -radius || x > this.target.width + radius || y > this.target.height + radius) return -1;
    const xy = this.target.xy;
    const r2 = radius * radius;
    let bestT = -1;
    let bestGap = Infinity;
    const x0 = Math.max(0, Math.floor((x - radius) / GRID));
    const x1 = Math.min(this.cols - 1, Math.floor((x + radius) / GRID));
    const y0 = Math.max(0, Math.floor((y - radius) / GRID));
    const y1 = Math.min(this.rows - 1, Math.floor((y + radius) / GRID));
    for (let cy = y0; cy <= y1; cy++) {
      for (let cx = x0; cx <= x1; cx++) {
        const c = cy * this.cols + cx;
        for (let k = this.start[c]; k < this.start[c + 1]; k++) {
          const t = this.items[k];
          const ex = xy[2 * t] - x;
          const ey = xy[2 * t + 1] - y;
          const gap = ex * ex + ey * ey;
          if (gap > r2 || gap >= bestGap) continue;
          if (!hammingWithin(this.queryWords, q, this.targetWords, t, GUIDED_MAX_DISTANCE)) continue;
          bestGap = gap;
          bestT = t;
        }
      }
    }
    return bestT;
  }
}
