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
 * How alike two whole images are in colour, pixel for pixel: both shrunk to LIKENESS_WIDTH (the target to the query's
 * shape, mirrored when `mirrored`), blurred, then compared channel by channel. Where gradients say nothing (a smooth
 * gradient's gradient field is the same everywhere, and JPEG noise dominates it), the colours themselves still do.
 */
export async function colourLikeness(query: RgbImage, target: RgbImage, mirrored = false): Promise<ColourLikeness> {
  const { cv } = await loadOpenCv();
  const size = new cv.Size(LIKENESS_WIDTH, Math.max(1, Math.round((LIKENESS_WIDTH * query.height) / query.width)));
  const [q, t] = withMats((track) =>
    [query, target].map((img, i) => {
      const full = track(cv.matFromArray(img.height, img.width, cv.CV_8UC3, img.data));
      const small = track(new cv.Mat());
      cv.resize(full, small, size, 0, 0, cv.INTER_AREA);
      if (i === 1 && mirrored) cv.flip(small, small, 1);
      cv.GaussianBlur(small, small, new cv.Size(0, 0), LIKENESS_BLUR_SIGMA);
      return Uint8Array.from(small.data as Uint8Array);
    }),
  );
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
