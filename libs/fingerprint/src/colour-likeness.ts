import { loadOpenCv, withMats } from './opencv';
import type { RgbImage } from './types';

/** Width (px) both images are shrunk to: a smooth image's content is all there at this size. */
const LIKENESS_WIDTH = 48;
/** Blur (px at LIKENESS_WIDTH) before comparing: JPEG blocks and dithering are not the picture. */
const LIKENESS_BLUR_SIGMA = 1;

export interface ColourLikeness {
  /**
   * The pixels' correlation (Pearson, -1-1) pooled over the three channels; 0 when either image is flat (under one
   * level² of variance over its channels).
   */
  correlation: number;
  /** Mean absolute difference of the channel values, 0-255. */
  meanDifference: number;
}

/**
 * Width (px) both images are compared at instead when the query is nearly flat at LIKENESS_WIDTH (its channels' summed
 * variance under TEXTURE_FLAT_VARIANCE level²) but not at TEXTURE_WIDTH (at least TEXTURE_GAIN times that): its
 * pattern is finer than LIKENESS_WIDTH shows. A quarter of a fine tile lattice or of a weave is then one colour (1-18
 * level², against 11-223 at 96 px), and its correlation with its own place in its image is JPEG noise (0.67-0.75 in the
 * matching benchmark, where 0.8 confirms); at 96 px those crops correlated at 0.87-0.90 within 3 levels. A pattern that
 * varies at LIKENESS_WIDTH is compared there: rotated crops of sharp stripes (418-1,530 level²) correlated at 0.96-0.99
 * at both widths, but differed by 4-6 levels at 96 px (their edges a pixel apart), where 4 confirms.
 */
const TEXTURE_WIDTH = 96;
const TEXTURE_FLAT_VARIANCE = 50;
const TEXTURE_GAIN = 2;

/**
 * How alike two whole images are in colour, pixel for pixel: both shrunk to LIKENESS_WIDTH (TEXTURE_WIDTH for a query
 * whose pattern is finer than that shows; the target to the query's shape, mirrored when `mirrored`), blurred, then
 * compared channel by channel. Where gradients say nothing (a smooth gradient's gradient field is the same everywhere,
 * and JPEG noise dominates it), the colours themselves still do.
 */
export async function colourLikeness(query: RgbImage, target: RgbImage, mirrored = false): Promise<ColourLikeness> {
  const { cv } = await loadOpenCv();
  const [q, t] = withMats((track) => {
    const matOf = (img: RgbImage) => track(cv.matFromArray(img.height, img.width, cv.CV_8UC3, img.data));
    // Both images to `width` at the query's shape, blurred.
    const shrunk = (full: ReturnType<typeof matOf>, width: number, mirror: boolean) => {
      const size = new cv.Size(width, Math.max(1, Math.round((width * query.height) / query.width)));
      const small = track(new cv.Mat());
      cv.resize(full, small, size, 0, 0, cv.INTER_AREA);
      if (mirror) cv.flip(small, small, 1);
      cv.GaussianBlur(small, small, new cv.Size(0, 0), LIKENESS_BLUR_SIGMA);
      return Uint8Array.from(small.data as Uint8Array);
    };
    // The query is read into OpenCV once; it is shrunk to TEXTURE_WIDTH only when it is nearly flat at LIKENESS_WIDTH.
    const queryMat = matOf(query);
    const small = shrunk(queryMat, LIKENESS_WIDTH, false);
    const variance = channelVariance(small);
    const finer = variance < TEXTURE_FLAT_VARIANCE ? shrunk(queryMat, TEXTURE_WIDTH, false) : null;
    const compared = finer && channelVariance(finer) >= TEXTURE_GAIN * variance ? { pixels: finer, width: TEXTURE_WIDTH } : { pixels: small, width: LIKENESS_WIDTH };
    return [compared.pixels, shrunk(matOf(target), compared.width, mirrored)];
  });
  // Covariances and variances summed over the channels (each about its own mean): a channel weighs as much as it
  // varies, so a nearly flat one (a gradient between two shades of one hue) adds its JPEG noise without deciding.
  let [covariance, varianceQ, varianceT, difference] = [0, 0, 0, 0];
  for (let c = 0; c < 3; c++) {
    let [sq, st, sqq, stt, sqt, n] = [0, 0, 0, 0, 0, 0];
    for (let i = c; i < q.length; i += 3) {
      sq += q[i];
      st += t[i];
      sqq += q[i] * q[i];
      stt += t[i] * t[i];
      sqt += q[i] * t[i];
      difference += Math.abs(q[i] - t[i]);
      n++;
    }
    const [mq, mt] = [sq / n, st / n];
    covariance += sqt / n - mq * mt;
    varianceQ += sqq / n - mq * mq;
    varianceT += stt / n - mt * mt;
  }
  // A flat image (under one level² over its channels) has no pattern to compare.
  const flat = varianceQ <= 1 || varianceT <= 1;
  return { correlation: flat ? 0 : covariance / Math.sqrt(varianceQ * varianceT), meanDifference: difference / q.length };
}

/** The variances of an interleaved RGB image's three channels, summed (level²). */
function channelVariance(pixels: Uint8Array): number {
  let variance = 0;
  for (let c = 0; c < 3; c++) {
    let [sum, squares, n] = [0, 0, 0];
    for (let i = c; i < pixels.length; i += 3) {
      sum += pixels[i];
      squares += pixels[i] * pixels[i];
      n++;
    }
    variance += squares / n - (sum / n) ** 2;
  }
  return variance;
}
