import { averageCells } from '@loupe/fingerprint';
import type { ImageInfo, RgbImage } from './types';

export interface ImageAssessment {
  extremelySmall: boolean;
  singleColor: boolean;
  /** User-facing sentence explaining why the image cannot be searched, or null when it can. */
  reason: string | null;
}

/**
 * Smallest usable side of the ORIGINAL image. ORB, the feature detector the match
 * service uses, describes a 31x31 px patch around each keypoint: a side shorter than one
 * patch cannot hold a single feature, whatever the content.
 */
export const MIN_IMAGE_SIDE = 32;

/**
 * Cells across the longer side when judging flatness. At the 600 px preferred side a cell
 * is about 5x5 px: JPEG ringing and sensor noise average out (cell noise falls by ~5x),
 * while real texture, even fine texture, survives as cell-to-cell differences.
 */
const FLATNESS_GRID_CELLS = 128;

/**
 * Share of cells ignored at each end of every channel's distribution, so a few stray
 * pixels, a dust speck or a watermark covering under 1 % of the image do not count as content.
 */
const STRAY_FRACTION = 0.01;

/**
 * Largest spread (levels, 1st to 99th percentile of cell means) of luma and of each chroma channel that still counts as
 * one color. Measured at the 600 px norm: a flat color with pixel noise of up to ±16 levels, saved as JPEG q50-90,
 * spreads at most 7; the faintest wallpapers of the matching benchmark (a field of faint symbols, a near-flat grub
 * screen) spread 9-16, and JPEG q10-30 copies of them 7.4-15.8; a photo spreads well over 50. 16 refused those
 * wallpapers and their copies as "single color" although they match (a JPEG q10 copy verifies at score 71).
 */
const FLAT_SPREAD_LIMIT = 8;

/** Spread between the low and high STRAY_FRACTION quantiles of 8-bit-ranged values. */
function robustSpread(values: Float32Array): number {
  const histogram = new Uint32Array(256);
  for (const v of values) histogram[Math.min(255, Math.max(0, Math.round(v)))]++;
  const skip = Math.floor(values.length * STRAY_FRACTION);
  let low = 0;
  for (let seen = 0; low < 255 && seen + histogram[low] <= skip; low++) seen += histogram[low];
  let high = 255;
  for (let seen = 0; high > 0 && seen + histogram[high] <= skip; high--) seen += histogram[high];
  return Math.max(0, high - low);
}

/** Whether the image is essentially one flat color: small spread in luma and both chroma channels. */
export function isSingleColor(img: RgbImage): boolean {
  const { means } = averageCells(img, 3, FLATNESS_GRID_CELLS);
  const cells = means.length / 3;
  const luma = new Float32Array(cells);
  const cb = new Float32Array(cells);
  const cr = new Float32Array(cells);
  for (let c = 0; c < cells; c++) {
    const r = means[c * 3];
    const g = means[c * 3 + 1];
    const b = means[c * 3 + 2];
    // BT.601 YCbCr, chroma offset to 128 so all three share the 0-255 histogram.
    luma[c] = 0.299 * r + 0.587 * g + 0.114 * b;
    cb[c] = 128 - 0.168736 * r - 0.331264 * g + 0.5 * b;
    cr[c] = 128 + 0.5 * r - 0.418688 * g - 0.081312 * b;
  }
  return [luma, cb, cr].every((channel) => robustSpread(channel) <= FLAT_SPREAD_LIMIT);
}

/**
 * Decides whether an image is usable for recognition (docs/protocol.md §9: extremely small
 * or single-color images are refused as queries and not searchable when added). Size is
 * judged on the original, content on the decoded pixels.
 */
export function assessImage(img: RgbImage, original: ImageInfo): ImageAssessment {
  const extremelySmall = Math.min(original.width, original.height) < MIN_IMAGE_SIDE;
  const singleColor = isSingleColor(img);
  let reason: string | null = null;
  if (extremelySmall) {
    reason = `The image is too small (${original.width}x${original.height} px; at least ${MIN_IMAGE_SIDE} px on each side is needed).`;
  } else if (singleColor) {
    reason = 'The image is essentially a single flat color; there is nothing in it to recognize.';
  }
  return { extremelySmall, singleColor, reason };
}
