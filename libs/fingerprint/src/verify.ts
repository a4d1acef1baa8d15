import { loadOpenCv, withMats, type Cv } from './opencv';
import { DESCRIPTOR_BYTES } from './hamming';
import { applyHomography, clipToRect, convexHull, imageCorners, invert, multiply, signedArea, type Homography, type Point } from './geometry';
import { isPlausibleTransform } from './transform-sanity';
import { matchMetrics, scoreFromInliers } from './match-metrics';
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
 * RANSAC rounds: at the accepted floor of MIN_INLIER_RATIO inliers, 4-point samples reach 99.5 %
 * confidence after ~350 rounds; more only burns time on pairs that will be rejected anyway.
 */
const RANSAC_ITERATIONS = 500;
const RANSAC_CONFIDENCE = 0.995;

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
  let best = estimate(cv, query, target, minInliers);
  let flipped = false;
  if (opts.checkHorizontalFlip) {
    if (!query.mirrored) throw new MirrorFeaturesMissingError();
    const mirrored = estimate(cv, query.mirrored, target, minInliers);
    if (mirrored && (!best || mirrored.inliers > best.inliers)) {
      const unmirror = [-1, 0, query.width - 1, 0, 1, 0, 0, 0, 1];
      best = { transform: multiply(unmirror, mirrored.transform), inliers: mirrored.inliers };
      flipped = true;
    }
  }
  if (!best || best.inliers < minInliers) return null;
  return matchMetrics(query, target, best.transform, best.inliers, flipped);
}

interface Fit {
  transform: Homography;
  inliers: Array<[number, number]>;
}

interface Estimate {
  transform: Homography;
  inliers: number;
}

function estimate(cv: Cv, query: Features, target: Features, minInliers: number): Estimate | null {
  const pairs = ratioMatches(cv, query, target);
  // Fewer than 4 pairs cannot fix a homography, fewer than minInliers cannot pass.
  if (pairs.length < Math.max(4, minInliers)) return null;
  const threshold = Math.max(MIN_REPROJECTION_PX, REPROJECTION_SHARE * Math.max(query.width, query.height));
  const result = withMats((track): Fit | null => {
    const src = track(cv.matFromArray(pairs.length, 1, cv.CV_32FC2, pairs.flatMap(([, t]) => [target.xy[2 * t], target.xy[2 * t + 1]])));
    const dst = track(cv.matFromArray(pairs.length, 1, cv.CV_32FC2, pairs.flatMap(([q]) => [query.xy[2 * q], query.xy[2 * q + 1]])));
    const mask = track(new cv.Mat());
    const h = track(cv.findHomography(src, dst, cv.RANSAC, threshold, mask, RANSAC_ITERATIONS, RANSAC_CONFIDENCE));
    if (h.rows === 3) {
      const transform = Array.from(h.data64F as Float64Array);
      if (isPlausibleTransform(transform, target.width, target.height)) return { transform, inliers: inlierPairs(pairs, mask) };
    }
    const affineMask = track(new cv.Mat());
    const a = track(cv.estimateAffine2D(src, dst, affineMask, cv.RANSAC, threshold, RANSAC_ITERATIONS, RANSAC_CONFIDENCE));
    if (a.rows !== 2) return null;
    const transform = [...Array.from(a.data64F as Float64Array), 0, 0, 1];
    if (!isPlausibleTransform(transform, target.width, target.height)) return null;
    return { transform, inliers: inlierPairs(pairs, affineMask) };
  });
  if (!result || result.inliers.length < MIN_INLIER_RATIO * pairs.length) return null;
  if (result.inliers.length < SPREAD_EXEMPT_INLIERS && inlierSpread(query, target, result) < MIN_INLIER_SPREAD) return null;
  return { transform: result.transform, inliers: result.inliers.length };
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

/** [queryIndex, targetIndex] pairs passing the ratio test. */
function ratioMatches(cv: Cv, query: Features, target: Features): Array<[number, number]> {
  if (query.count < 2 || target.count < 2) return [];
  return withMats((track) => {
    const q = track(cv.matFromArray(query.count, DESCRIPTOR_BYTES, cv.CV_8UC1, query.descriptors));
    const t = track(cv.matFromArray(target.count, DESCRIPTOR_BYTES, cv.CV_8UC1, target.descriptors));
    const matcher = track(new cv.BFMatcher(cv.NORM_HAMMING, false));
    // Fresh vector per call: knnMatch appends to its output.
    const knn = track(new cv.DMatchVectorVector());
    matcher.knnMatch(q, t, knn, 2);
    const pairs: Array<[number, number]> = [];
    for (let i = 0; i < knn.size(); i++) {
      const row = knn.get(i);
      if (row.size() >= 2) {
        const first = row.get(0);
        const second = row.get(1);
        if (first.distance < RATIO * second.distance) pairs.push([first.queryIdx, first.trainIdx]);
      }
      row.delete();
    }
    return pairs;
  });
}
