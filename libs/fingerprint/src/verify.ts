import { loadOpenCv, withMats, type Cv } from './opencv';
import { applyHomography, clipToRect, convexHull, imageCorners, invert, multiply, signedArea, type Homography, type Point } from './geometry';
import { isPlausibleTransform } from './transform-sanity';
import { matchMetrics, scoreFromInliers } from './match-metrics';
import { defaultVocabulary } from './default-vocabulary';
import { cellRatioMatches } from './descriptor-matcher';
import { repeatedPatternFit } from './repeated-pattern';
import { pairPoints, similarityRansac } from './similarity-ransac';
import type { Features, MatchResult, VerifyOptions } from './types';

/**
 * Fewest RANSAC inliers accepted. A homography needs 4 points and random ORB matches between unrelated
 * images reach 6-9 consistent points in our measurements; 12 leaves margin.
 */
export const DEFAULT_MIN_INLIERS = 12;
/** Score of `DEFAULT_MIN_INLIERS` inliers (33.3): results below it are not matches. */
export const DEFAULT_MIN_SCORE = scoreFromInliers(DEFAULT_MIN_INLIERS);
/** Lowe's ratio test: the best match must be clearly better than the second, 0.8 as in the SIFT paper. */
const RATIO = 0.8;
/** Vocabulary depth whose cells partition descriptors for matching (see `cellMatches`). */
const MATCH_CELL_DEPTH = 1;
/**
 * Largest distance (of 256 bits) accepted for a query descriptor whose cell holds one target descriptor, when there is
 * no second best for the ratio test: true ORB matches measured under 50 bits, unrelated descriptors around 128.
 */
const LONE_MAX_DISTANCE = 64;
/**
 * Orientation-difference histogram of `orientationConsistent`: 36 bins of 10°, windows of 5 bins (50°). On 348 edited
 * benchmark pairs a 30° window lost one match that 50° keeps; either cuts a negative verification from ~4 ms to ~2 ms.
 */
const ORIENTATION_BINS = 36;
const ORIENTATION_WINDOW = 5;
/**
 * Weak fits (for the dense check) keep each descriptor's nearest neighbour within this distance, without the ratio
 * test, which discards the matches of repeated motifs and of smooth images' look-alike corners. On 18 benchmark pairs
 * that failed verification, 40 bits let the dense check confirm 6 copies (4 with the ratio test), while the weak fits of
 * 1,044 unrelated pairs correlated at most 49, under DENSE_CONFIRM_MIN; 50 bits confirmed 7 but let unrelated pairs
 * reach 54.
 */
const WEAK_FIT_MAX_DISTANCE = 40;
/** RANSAC reprojection tolerance as a share of the query's longer side (4.8 px at 800 px), at least 2.5 px. */
const REPROJECTION_SHARE = 0.006;
const MIN_REPROJECTION_PX = 2.5;
/**
 * Least share of ratio-test pairs that must be RANSAC inliers. True matches measured 0.75-1.0 (JPEG q10:
 * 0.78); unrelated images 0.2-0.3 and a mirrored query without flip checking 0.21 (symmetric shapes and
 * letters). 0.35 sits between, leaving room for clutter around the matched object in real photos.
 */
const MIN_INLIER_RATIO = 0.35;
/**
 * Least inlier spread (see `inlierSpread`). True matches measured 0.43 (25 % crop) to 0.78; an unrelated
 * image sharing two rendered words with a target scored 0.026 with 18 inliers. 0.1 separates them and
 * still accepts targets whose texture fills only a tenth of the shared region.
 */
const MIN_INLIER_SPREAD = 0.1;
/**
 * Inliers above which a fit is a match whatever its spread: the worst unrelated pair measured 18 inliers (two shared
 * rendered words), while a plain wallpaper whose only texture is one small motif matches a copy of itself with 160+
 * inliers in a corner of the overlap, which the spread test alone would refuse.
 */
const SPREAD_EXEMPT_INLIERS = 40;
/**
 * Inlier spread under which a fit is flagged (`MatchResult.concentrated`) for a pixel check (`confirmSharedDetail`). Logos
 * and badges of one design that share a mark and a tagline set in one font with another logo fit it with 42-187 inliers,
 * at spreads of 0.013-0.26 in the pair probe (133 pairs) and above 0.3 for a badge crop in the benchmark; true copies
 * spread 0.01-0.98, about a fifth of them under 0.5 (only those pay for the check's decode).
 */
export const CONCENTRATED_SPREAD = 0.5;
/**
 * RANSAC rounds: at the accepted floor of MIN_INLIER_RATIO inliers, 4-point samples reach 99.5 %
 * confidence after ~350 rounds; more only burns time on pairs that will be rejected anyway.
 */
const RANSAC_ITERATIONS = 500;
const RANSAC_CONFIDENCE = 0.995;
/**
 * Most rounds of a weak fit's similarity RANSAC: 2-pair samples reach RANSAC_CONFIDENCE within 1,000 rounds down to a
 * 7 % inlier share (6 inliers among 85 pairs).
 */
const WEAK_FIT_RANSAC_ROUNDS = 1000;

export class MirrorFeaturesMissingError extends Error {
  constructor() {
    super('checkHorizontalFlip needs query features extracted with { includeMirror: true }');
    this.name = 'MirrorFeaturesMissingError';
  }
}

/**
 * Geometric verification of a candidate: ratio-tested Hamming kNN matches, RANSAC homography (affine
 * fallback) with plausibility checks. With `checkHorizontalFlip` the mirrored query features are tried too
 * and the result with more inliers kept. Null when the images do not match.
 */
export async function verifyMatch(query: Features, target: Features, opts: VerifyOptions = {}): Promise<MatchResult | null> {
  const { cv } = await loadOpenCv();
  const minInliers = opts.minInliers ?? DEFAULT_MIN_INLIERS;
  let best = estimate(cv, query, target, minInliers, opts.weakFit ?? false);
  let flipped = false;
  if (opts.checkHorizontalFlip) {
    if (!query.mirrored) throw new MirrorFeaturesMissingError();
    const mirrored = estimate(cv, query.mirrored, target, minInliers, opts.weakFit ?? false);
    if (mirrored && (!best || mirrored.inliers > best.inliers)) {
      const unmirror = [-1, 0, query.width - 1, 0, 1, 0, 0, 0, 1];
      const unmirrored = (e: Estimate): Estimate => ({ ...e, transform: multiply(unmirror, e.transform) });
      best = { ...unmirrored(mirrored), alternatives: mirrored.alternatives?.map(unmirrored) };
      flipped = true;
    }
  }
  if (!best || best.inliers < minInliers) return null;
  const result = matchMetrics(query, target, best.transform, best.inliers, flipped);
  const alternatives = best.alternatives?.map((a) => matchMetrics(query, target, a.transform, a.inliers, flipped));
  return { ...result, ...(best.concentrated && { concentrated: true }), ...(alternatives?.length && { alternatives }) };
}

interface Fit {
  transform: Homography;
  inliers: Array<[number, number]>;
}

interface Estimate {
  transform: Homography;
  inliers: number;
  /** The inliers cover under CONCENTRATED_SPREAD of the overlap. */
  concentrated?: boolean;
  /** Weak fits only: the other alignments the pairs support (`weakSimilarityFit`). */
  alternatives?: Estimate[];
}

function estimate(cv: Cv, query: Features, target: Features, minInliers: number, weakFit: boolean): Estimate | null {
  return pairEstimate(cv, query, target, cellMatches(query, target, weakFit), minInliers, weakFit);
}

function pairEstimate(cv: Cv, query: Features, target: Features, pairs: Array<[number, number]>, minInliers: number, weakFit: boolean): Estimate | null {
  // Fewer than 4 pairs cannot fix a homography, fewer than minInliers cannot pass.
  if (pairs.length < Math.max(4, minInliers)) return null;
  // A match's inliers turn by one rotation, so they are among the orientation-consistent pairs; when those are fewer
  // than a match needs, there is none, and RANSAC (most of a negative verification's cost) is skipped.
  const [consistent, otherTurn] = orientationWindows(query, target, pairs, weakFit ? 2 : 1);
  const needed = weakFit ? minInliers : Math.max(minInliers, MIN_INLIER_RATIO * pairs.length);
  if (consistent.length < needed) return null;
  const threshold = Math.max(MIN_REPROJECTION_PX, REPROJECTION_SHARE * Math.max(query.width, query.height));
  if (weakFit) return weakSimilarityFit(query, target, consistent, otherTurn ?? [], threshold, minInliers);
  const rounds = ransacRounds(needed / consistent.length);
  const result = withMats((track): Fit | null => {
    const src = track(cv.matFromArray(consistent.length, 1, cv.CV_32FC2, consistent.flatMap(([, t]) => [target.xy[2 * t], target.xy[2 * t + 1]])));
    const dst = track(cv.matFromArray(consistent.length, 1, cv.CV_32FC2, consistent.flatMap(([q]) => [query.xy[2 * q], query.xy[2 * q + 1]])));
    const mask = track(new cv.Mat());
    const h = track(cv.findHomography(src, dst, cv.RANSAC, threshold, mask, rounds, RANSAC_CONFIDENCE));
    if (h.rows === 3) {
      const transform = Array.from(h.data64F as Float64Array);
      if (isPlausibleTransform(transform, target.width, target.height)) return { transform, inliers: inlierPairs(consistent, mask) };
    }
    const affineMask = track(new cv.Mat());
    const a = track(cv.estimateAffine2D(src, dst, affineMask, cv.RANSAC, threshold, rounds, RANSAC_CONFIDENCE));
    if (a.rows !== 2) return null;
    const transform = [...Array.from(a.data64F as Float64Array), 0, 0, 1];
    if (!isPlausibleTransform(transform, target.width, target.height)) return null;
    return { transform, inliers: inlierPairs(consistent, affineMask) };
  });
  if (!result) return null;
  if (result.inliers.length < MIN_INLIER_RATIO * pairs.length) return null;
  const spread = inlierSpread(query, target, result);
  if (result.inliers.length < SPREAD_EXEMPT_INLIERS && spread < MIN_INLIER_SPREAD) return null;
  return { transform: result.transform, inliers: result.inliers.length, concentrated: spread < CONCENTRATED_SPREAD };
}

/**
 * A weak fit (see `weakFitOptions`) is a similarity: the dense check it feeds is for whole copies of smooth images, which
 * are rescaled, rotated, cropped or recompressed but not tilted. Without the ratio test most of its pairs are outliers,
 * where 4-point homography RANSAC needs its full 500 rounds (+500 for the affine fallback, 5-15 ms a pair on star
 * fields); 2-point similarity samples reach the same confidence in far fewer, cheaper rounds (`similarityRansac`).
 *
 * The best fit comes with alternatives: RANSAC again on the pairs the best one left, and on the pairs of the second
 * most common turn (`otherTurn`). A repeated pattern supports several alignments about equally (lattice shifts at
 * another scale, a turn by the motif's symmetry: square tiles match turned by 90°), and the best-supported one is often
 * not the one whose pixels agree. On the pair probe's 32 crops of patterns (25 and 50 %) the alternatives let the dense
 * check confirm 23 instead of 19, and 2 more of 16 logo crops, with no more false fits.
 */
function weakSimilarityFit(query: Features, target: Features, pairs: ReadonlyArray<[number, number]>, otherTurn: ReadonlyArray<[number, number]>, threshold: number, minInliers: number): Estimate | null {
  const fit = (candidates: ReadonlyArray<[number, number]>) => {
    if (candidates.length < minInliers) return null;
    const { from, to } = pairPoints(query, target, candidates);
    const found = similarityRansac(from, to, threshold, WEAK_FIT_RANSAC_ROUNDS, RANSAC_CONFIDENCE);
    return found && found.inliers.length >= minInliers ? found : null;
  };
  const plausible = (transform: Homography) => isPlausibleTransform(transform, target.width, target.height);
  const first = fit(pairs);
  let best: Estimate | null = first && plausible(first.transform) ? { transform: first.transform, inliers: first.inliers.length } : null;
  // A repeated pattern's nearest neighbours are copies of the right motif in the wrong places: they agree on no single
  // fit, and RANSAC finds little. Guided growth from single pairs finds the alignment (or a lattice shift of it, as good
  // for the pixel check that follows).
  if (!best) {
    const grown = repeatedPatternFit(query, target, pairs, threshold);
    if (grown && grown.inliers.length >= minInliers && plausible(grown.transform)) best = { transform: grown.transform, inliers: grown.inliers.length };
  }
  const used = new Set(first?.inliers);
  const alternatives = [first && fit(pairs.filter((_, i) => !used.has(i))), fit(otherTurn)]
    .filter((f): f is NonNullable<typeof f> => f !== null && plausible(f.transform))
    .map((f): Estimate => ({ transform: f.transform, inliers: f.inliers.length }));
  if (!best) return alternatives.length > 0 ? { ...alternatives[0], alternatives: alternatives.slice(1) } : null;
  return alternatives.length > 0 ? { ...best, alternatives } : best;
}

/**
 * RANSAC rounds that find, with RANSAC_CONFIDENCE, a 4-point sample free of outliers when at least `inlierShare` of
 * the pairs are inliers (the least share an accepted fit can have); OpenCV stops earlier once a fit shows a higher share.
 */
export function ransacRounds(inlierShare: number): number {
  const clean = Math.min(1, inlierShare) ** 4;
  if (clean >= 1) return 1;
  return Math.min(RANSAC_ITERATIONS, Math.ceil(Math.log(1 - RANSAC_CONFIDENCE) / Math.log(1 - clean)));
}

/**
 * The pairs whose keypoint orientations differ by about the same angle: the most populated window of
 * ORIENTATION_WINDOW bins of 360 / ORIENTATION_BINS degrees. The pairs of a true match turn by one rotation (noisy by
 * ~10° under blur or tilt), those of unrelated images by random angles.
 */
export function orientationConsistent(query: Features, target: Features, pairs: ReadonlyArray<[number, number]>): Array<[number, number]> {
  return orientationWindows(query, target, pairs, 1)[0];
}

/**
 * The pairs of the `count` most populated orientation windows (see `orientationConsistent`) that do not overlap, most
 * populated first: a symmetric motif (a square tile) matches its copies turned by each of its symmetries.
 */
function orientationWindows(query: Features, target: Features, pairs: ReadonlyArray<[number, number]>, count: number): Array<Array<[number, number]>> {
  const binOf = pairs.map(([q, t]) => {
    const turn = (((query.meta[4 * q + 1] - target.meta[4 * t + 1]) % 360) + 360) % 360;
    return Math.floor((turn / 360) * ORIENTATION_BINS) % ORIENTATION_BINS;
  });
  const bins = new Int32Array(ORIENTATION_BINS);
  for (const b of binOf) bins[b]++;
  const windows = new Int32Array(ORIENTATION_BINS);
  for (let b = 0; b < ORIENTATION_BINS; b++) {
    for (let k = 0; k < ORIENTATION_WINDOW; k++) windows[b] += bins[(b + k) % ORIENTATION_BINS];
  }
  const starts: number[] = [];
  const apart = (a: number, b: number) => Math.min((a - b + ORIENTATION_BINS) % ORIENTATION_BINS, (b - a + ORIENTATION_BINS) % ORIENTATION_BINS) >= ORIENTATION_WINDOW;
  while (starts.length < count) {
    let best = -1;
    for (let b = 0; b < ORIENTATION_BINS; b++) {
      if (starts.every((s) => apart(s, b)) && (best < 0 || windows[b] > windows[best])) best = b;
    }
    if (best < 0) break;
    starts.push(best);
  }
  return starts.map((start) => pairs.filter((_, i) => (binOf[i] - start + ORIENTATION_BINS) % ORIENTATION_BINS < ORIENTATION_WINDOW));
}

function inlierPairs(pairs: Array<[number, number]>, mask: { data: Uint8Array }): Array<[number, number]> {
  return pairs.filter((_, i) => mask.data[i] !== 0);
}

/**
 * Area of the inliers' convex hull in the target over the area of the overlap (query outline projected
 * into the target). Near 1 when the matches cover the shared region, near 0 when a couple of small shared
 * details (the same word in the same font) drive the fit.
 */
export function inlierSpread(query: Features, target: Features, fit: { transform: Homography; inliers: Array<[number, number]> }): number {
  const hull = convexHull(fit.inliers.map(([, t]): Point => [target.xy[2 * t], target.xy[2 * t + 1]]));
  const backward = invert(fit.transform);
  const outline = imageCorners(query.width, query.height).map(([x, y]) => applyHomography(backward, x, y));
  const overlap = Math.abs(signedArea(clipToRect(outline, target.width, target.height)));
  return overlap > 0 && hull.length >= 3 ? Math.abs(signedArea(hull)) / overlap : 0;
}

/**
 * [queryIndex, targetIndex] pairs passing the ratio test (for a weak fit: nearest neighbours within
 * WEAK_FIT_MAX_DISTANCE), each query descriptor compared only with the target descriptors in its own cell of the vocabulary's first level (10 cells) instead of all 1000: on 348 edited pairs of
 * the benchmark photos brute force verified 317 and cell matching 316 (depth 2, 100 cells: 312, blur losing 4 of 11),
 * at 9.3 ms instead of 29.5 ms per verified pair (median).
 */
function cellMatches(query: Features, target: Features, weakFit: boolean): Array<[number, number]> {
  if (query.count < 2 || target.count < 2) return [];
  const options = weakFit ? { ratio: null, loneMaxDistance: WEAK_FIT_MAX_DISTANCE } : { ratio: RATIO, loneMaxDistance: LONE_MAX_DISTANCE };
  return cellRatioMatches(query, cellsOf(query), target, cellsOf(target), options);
}

const cellCache = new WeakMap<Features, Int32Array>();

/** Cells of a query are reused across its whole shortlist. */
function cellsOf(f: Features): Int32Array {
  let cells = cellCache.get(f);
  if (!cells) {
    cells = defaultVocabulary().cells(f, MATCH_CELL_DEPTH);
    cellCache.set(f, cells);
  }
  return cells;
}
