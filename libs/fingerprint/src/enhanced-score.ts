import { loadOpenCv, withMats } from './opencv';
import { invert, multiply, type Homography } from './geometry';
import { eccAffine } from './ecc';
import { gradientNcc } from './gradient-ncc';
import type { MatchResult, RgbImage } from './types';

/** Longer side the comparison runs at: enough detail for gradients, ~100k pixels so it stays a few ms. */
const COMPARE_SIDE = 360;
/** Blur before gradients, in pixels at COMPARE_SIDE: absorbs residual misalignment of a pixel or two. */
const BLUR_SIGMA = 1.2;
/** Pixels eroded from the warped outline so interpolation edges do not count as gradients. */
const EDGE_ERODE = 3;
/** Overlaps smaller than 2 % of the comparison frame are too small to judge: scored 0. */
const MIN_OVERLAP_SHARE = 0.02;

/**
 * Relative scales (about the query's centre) that `alignedByPixels` tries around a fit whose gradients correlate from
 * ALIGN_FLOOR up to the confirmation floor. A weak fit of a fine lattice averages pairs a period apart, and its scale
 * comes out a few percent off: a tile wall turned 20° and back upright fitted 2 % off correlated at 32, and at 78 once
 * rescaled. In the matching benchmark's large sample (756 family queries), these four scales found that wall and cost
 * the queries outside the collection about 3-5 ms in their dense step; ±3 % and shifts of up to two comparison pixels
 * for every fit under the floor found one more (a wood grain) for about 95 ms more, and without the shared-design
 * judgement both let another weave of one palette through (docs/benchmarks.md, session 41).
 */
const ALIGN_SCALES = [0.98, 0.99, 1.01, 1.02];
const ALIGN_FLOOR = 30;

/**
 * Iterations of the intensity alignment (`settledAlignment`, `eccAffine`) and how far it may move a placement, at
 * COMPARE_SIDE: a placement is searched at 192 px and lands up to two comparison pixels and a couple of percent of scale
 * off. Fine lattices, wood grain and stripes lose their edge agreement at that offset; in the matching benchmark's
 * large sample their own images' placements settled by 0.2-5.8 px and 0.1-1.8 % of scale, within 5 iterations (about
 * 25 ms on this machine kind). Bounded so, it settles a placement and does not search for another.
 */
const SETTLE_ITERATIONS = 5;
const SETTLE_MAX_SCALE = 0.04;
const SETTLE_MAX_SHEAR = 0.04;
const SETTLE_MAX_SHIFT = 12;
/** The settle stops once an iteration changes the correlation coefficient by less than this (OpenCV's usual 1e-4). */
const SETTLE_EPSILON = 1e-4;

/**
 * Second-pass score 0-100 (rounded to 0.1): warps the target onto the query with the match transform and
 * takes 100 × max(0, NCC) of blurred gradient magnitudes over the overlap. High when the images agree pixel
 * for pixel, not just at keypoints. `targetScale` says the target's pixels are that many times the size the transform
 * was fitted at: a stored image decoded at reduced size (JPEG shrink-on-load) is enough for a comparison at
 * COMPARE_SIDE and several times cheaper to decode and warp.
 */
export async function enhancedScore(queryRgb: RgbImage, targetRgb: RgbImage, m: MatchResult, targetScale = 1): Promise<number> {
  const { cv } = await loadOpenCv();
  return withComparison(cv, queryRgb, targetRgb, targetScale, ({ score }) => score(m.transform));
}

/**
 * The transform at which the pixels of a fit agree best, and their `enhancedScore`: `m`'s own when it scores at least
 * `enough` or under ALIGN_FLOOR (pixels that hardly agree are not searched), else the best of it and its rescalings
 * about the query's centre (ALIGN_SCALES). A fit only proposes an alignment; this settles its scale, a few percent
 * around it and never elsewhere. A settled alignment is the best of several, so its confirmation should judge more than
 * gradients (`confirmDenseFit`).
 */
export async function alignedByPixels(queryRgb: RgbImage, targetRgb: RgbImage, m: MatchResult, targetScale: number, enough: number): Promise<{ transform: Homography; score: number }> {
  const { cv } = await loadOpenCv();
  return withComparison(cv, queryRgb, targetRgb, targetScale, ({ score }) => {
    let best = { transform: m.transform, score: score(m.transform) };
    if (best.score >= enough || best.score < ALIGN_FLOOR) return best;
    const [cx, cy] = [queryRgb.width / 2, queryRgb.height / 2];
    for (const k of ALIGN_SCALES) {
      const transform = multiply([k, 0, cx - k * cx, 0, k, cy - k * cy, 0, 0, 1], m.transform);
      const scored = score(transform);
      if (scored > best.score) best = { transform, score: scored };
    }
    return best;
  });
}

/**
 * The alignment (target → query, at the size the fit refers to) that a placement's pixels settle to: the affine
 * correction of `transform` that best aligns the grey levels of the warped collection image with the query's
 * (`eccAffine`, OpenCV's ECC in plain arrays) at COMPARE_SIDE, within a few pixels and percent of it (SETTLE_*), else
 * null. It refines a placement or a whole frame whose colours already agree; it is not for weak fits of repeating
 * patterns, which it aligns with other patterns of their grid just as well (docs/benchmarks.md, session 44).
 */
export async function settledAlignment(queryRgb: RgbImage, targetRgb: RgbImage, transform: Homography, targetScale: number): Promise<Homography | null> {
  const { cv } = await loadOpenCv();
  return withComparison(cv, queryRgb, targetRgb, targetScale, ({ settle }) => settle(transform));
}

/** What `withComparison` gives for one pair: transforms (target → query, at the size the fit refers to) scored and settled. */
interface Comparison {
  /** The `enhancedScore` of a transform. */
  score(transform: Homography): number;
  /** The transform settled by the grey levels (`settledAlignment`), or null. */
  settle(transform: Homography): Homography | null;
}

/**
 * Runs `use` with the comparison of one pair: the query at COMPARE_SIDE and both greys are made once, and each
 * transform costs a warp and a correlation (a few more to settle it).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function withComparison<T>(cv: any, queryRgb: RgbImage, targetRgb: RgbImage, targetScale: number, use: (comparison: Comparison) => T): T {
  const s = Math.min(1, COMPARE_SIDE / Math.max(queryRgb.width, queryRgb.height));
  const w = Math.max(1, Math.round(queryRgb.width * s));
  const h = Math.max(1, Math.round(queryRgb.height * s));
  const toCompared: Homography = [s, 0, 0, 0, s, 0, 0, 0, 1];
  return withMats((track) => {
    const size = new cv.Size(w, h);
    const ksize = new cv.Size(0, 0);
    const queryGrey = track(greyOf(cv, track, queryRgb));
    const querySmall = track(new cv.Mat());
    cv.resize(queryGrey, querySmall, size, 0, 0, cv.INTER_AREA);
    cv.GaussianBlur(querySmall, querySmall, ksize, BLUR_SIGMA);
    const targetGrey = track(greyOf(cv, track, targetRgb));
    const ones = track(new cv.Mat(targetRgb.height, targetRgb.width, cv.CV_8UC1, new cv.Scalar(255)));
    const kernel = track(cv.Mat.ones(2 * EDGE_ERODE + 1, 2 * EDGE_ERODE + 1, cv.CV_8U));
    /** The target warped onto the query at the comparison size, not blurred, and its overlap less the eroded outline. */
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const warpedOnto = (transform: Homography, own: <M extends { delete(): void }>(m: M) => M): { warped: any; mask: any } => {
      const toSmall = multiply(multiply(toCompared, transform), [1 / targetScale, 0, 0, 0, 1 / targetScale, 0, 0, 0, 1]);
      const warp = own(cv.matFromArray(3, 3, cv.CV_64F, toSmall));
      const warped = own(new cv.Mat());
      cv.warpPerspective(targetGrey, warped, warp, size, cv.INTER_AREA, cv.BORDER_CONSTANT, new cv.Scalar(0));
      const mask = own(new cv.Mat());
      cv.warpPerspective(ones, mask, warp, size, cv.INTER_NEAREST, cv.BORDER_CONSTANT, new cv.Scalar(0));
      cv.erode(mask, mask, kernel);
      return { warped, mask };
    };
    const score = (transform: Homography) =>
      withMats((own) => {
        const { warped, mask } = warpedOnto(transform, own);
        cv.GaussianBlur(warped, warped, ksize, BLUR_SIGMA);
        const ncc = gradientNcc(querySmall.data, warped.data, mask.data, w, h, MIN_OVERLAP_SHARE * w * h);
        return Math.round(Math.max(0, ncc) * 1000) / 10;
      });
    const settle = (transform: Homography): Homography | null => {
      const correction = withMats((own) => {
        const { warped, mask } = warpedOnto(transform, own);
        // Grey levels as they are, not blurred as the scorer's: made here, as few comparisons settle.
        const query = own(new cv.Mat());
        cv.resize(queryGrey, query, size, 0, 0, cv.INTER_AREA);
        return eccAffine({ data: query.data, width: w, height: h }, { data: warped.data, width: w, height: h }, mask.data, { iterations: SETTLE_ITERATIONS, epsilon: SETTLE_EPSILON });
      });
      if (!correction) return null;
      const [a, b, shiftX, c, d, shiftY] = correction;
      if (Math.abs(a - 1) > SETTLE_MAX_SCALE || Math.abs(d - 1) > SETTLE_MAX_SCALE || Math.abs(b) > SETTLE_MAX_SHEAR || Math.abs(c) > SETTLE_MAX_SHEAR) return null;
      if (Math.hypot(shiftX, shiftY) > SETTLE_MAX_SHIFT) return null;
      // ECC maps query pixels to warped-target pixels; the target's pixels move by its inverse.
      return multiply(multiply(invert(toCompared), invert([a, b, shiftX, c, d, shiftY, 0, 0, 1])), multiply(toCompared, transform));
    };
    return use({ score, settle });
  });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function greyOf(cv: any, track: <M extends { delete(): void }>(m: M) => M, img: RgbImage): any {
  const rgb = track(cv.matFromArray(img.height, img.width, cv.CV_8UC3, img.data));
  const grey = new cv.Mat();
  cv.cvtColor(rgb, grey, cv.COLOR_RGB2GRAY);
  return grey;
}
