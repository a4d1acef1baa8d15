import { loadOpenCv, withMats } from './opencv';
import { multiply } from './geometry';
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
 * Second-pass score 0-100 (rounded to 0.1): warps the target onto the query with the match transform and
 * takes 100 × max(0, NCC) of blurred gradient magnitudes over the overlap. High when the images agree pixel
 * for pixel, not just at keypoints. `targetScale` says the target's pixels are that many times the size the transform
 * was fitted at: a stored image decoded at reduced size (JPEG shrink-on-load) is enough for a comparison at
 * COMPARE_SIDE and several times cheaper to decode and warp.
 */
export async function enhancedScore(queryRgb: RgbImage, targetRgb: RgbImage, m: MatchResult, targetScale = 1): Promise<number> {
  const { cv } = await loadOpenCv();
  const s = Math.min(1, COMPARE_SIDE / Math.max(queryRgb.width, queryRgb.height));
  const w = Math.max(1, Math.round(queryRgb.width * s));
  const h = Math.max(1, Math.round(queryRgb.height * s));
  const toSmall = multiply(multiply([s, 0, 0, 0, s, 0, 0, 0, 1], m.transform), [1 / targetScale, 0, 0, 0, 1 / targetScale, 0, 0, 0, 1]);
  return withMats((track) => {
    const size = new cv.Size(w, h);
    const queryGrey = track(greyOf(cv, track, queryRgb));
    const querySmall = track(new cv.Mat());
    cv.resize(queryGrey, querySmall, size, 0, 0, cv.INTER_AREA);
    const targetGrey = track(greyOf(cv, track, targetRgb));
    const warp = track(cv.matFromArray(3, 3, cv.CV_64F, toSmall));
    const warped = track(new cv.Mat());
    cv.warpPerspective(targetGrey, warped, warp, size, cv.INTER_AREA, cv.BORDER_CONSTANT, new cv.Scalar(0));
    const ones = track(new cv.Mat(targetRgb.height, targetRgb.width, cv.CV_8UC1, new cv.Scalar(255)));
    const mask = track(new cv.Mat());
    cv.warpPerspective(ones, mask, warp, size, cv.INTER_NEAREST, cv.BORDER_CONSTANT, new cv.Scalar(0));
    const kernel = track(cv.Mat.ones(2 * EDGE_ERODE + 1, 2 * EDGE_ERODE + 1, cv.CV_8U));
    cv.erode(mask, mask, kernel);
    const ksize = new cv.Size(0, 0);
    cv.GaussianBlur(querySmall, querySmall, ksize, BLUR_SIGMA);
    cv.GaussianBlur(warped, warped, ksize, BLUR_SIGMA);
    const ncc = gradientNcc(querySmall.data, warped.data, mask.data, w, h, MIN_OVERLAP_SHARE * w * h);
    return Math.round(Math.max(0, ncc) * 1000) / 10;
  });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function greyOf(cv: any, track: <M extends { delete(): void }>(m: M) => M, img: RgbImage): any {
  const rgb = track(cv.matFromArray(img.height, img.width, cv.CV_8UC3, img.data));
  const grey = new cv.Mat();
  cv.cvtColor(rgb, grey, cv.COLOR_RGB2GRAY);
  return grey;
}
