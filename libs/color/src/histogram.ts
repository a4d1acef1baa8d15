import { srgbToOklab, type Oklab } from './oklab';
import type { RgbImage } from './types';

/**
 * Bits kept per channel when pixels are binned. 5 bits (32 768 bins) keeps every bin narrower than ΔE_OK ≈ 3,
 * far below the merge distance, so binning changes no palette, while a 600×400 image collapses to a few
 * thousand weighted points that k-means can afford to visit many times.
 */
const BIN_BITS = 5;
const BIN_SHIFT = 8 - BIN_BITS;

/** Counted pixels grouped into color bins: mean OKLab color and pixel count per non-empty bin. */
export interface ColorBins {
  labs: Oklab[];
  counts: number[];
  /** Bin index of each entry (5 bits of red, green, blue, in that order from the high bits). */
  keys: number[];
  total: number;
}

/** Number of possible bins. */
export const BIN_COUNT = 1 << (3 * BIN_BITS);

/**
 * Bins the pixels of img whose mask value is 0 (mask 1 = left out); no mask counts every pixel. With pixelBins,
 * each counted pixel's bin is written there (the caller's per-pixel view of the clusters), others are left alone.
 */
export function binPixels(img: RgbImage, exclude?: Uint8Array, pixelBins?: Int32Array): ColorBins {
  const binCount = BIN_COUNT;
  // Per bin: pixel count and the sums of red, green and blue, side by side (one cache line per bin).
  const acc = new Float64Array(binCount * 4);
  const { data } = img;
  const pixels = img.width * img.height;
  for (let p = 0; p < pixels; p++) {
    if (exclude && exclude[p]) continue;
    const r = data[3 * p];
    const g = data[3 * p + 1];
    const b = data[3 * p + 2];
    const bin = ((r >> BIN_SHIFT) << (2 * BIN_BITS)) | ((g >> BIN_SHIFT) << BIN_BITS) | (b >> BIN_SHIFT);
    if (pixelBins) pixelBins[p] = bin;
    const o = 4 * bin;
    acc[o]++;
    acc[o + 1] += r;
    acc[o + 2] += g;
    acc[o + 3] += b;
  }
  const result: ColorBins = { labs: [], counts: [], keys: [], total: 0 };
  for (let bin = 0; bin < binCount; bin++) {
    const o = 4 * bin;
    const n = acc[o];
    if (n === 0) continue;
    result.labs.push(srgbToOklab(Math.round(acc[o + 1] / n), Math.round(acc[o + 2] / n), Math.round(acc[o + 3] / n)));
    result.counts.push(n);
    result.keys.push(bin);
    result.total += n;
  }
  return result;
}
