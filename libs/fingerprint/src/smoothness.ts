import { averageCells } from './cell-average';
import type { GrayImage } from './types';

/** The longer side an image is averaged down to before its curvature is read: finer than a gradient, coarser than JPEG blocks. */
export const SMOOTH_SIDE = 128;
/**
 * The most a smooth image's Laplacian reaches anywhere at SMOOTH_SIDE, in grey levels. Measured over the matching
 * benchmark's large sample (the family queries and their upright copies that reached a placement, and 59 photo queries):
 * the quarter crops of gradients and soft wallpapers and their upright copies (JPEG q30-50 included) reach 4-10; one
 * star, line, glyph or canvas corner reaches 20 and more, and no photo's copy (astronomy included) stayed under 16.
 */
export const SMOOTH_MAX_CURVATURE = 12;

/**
 * Whether an image is smooth throughout: averaged down to SMOOTH_SIDE on its longer side, no pixel's Laplacian exceeds
 * SMOOTH_MAX_CURVATURE. A gradient or a soft wallpaper is; an image with a single edge, corner, line or star is not,
 * which keeps night skies (black, but for their stars) out.
 */
export function isSmoothThroughout(gray: GrayImage): boolean {
  // At least 3 cells a side, so that even a thin strip has an inside whose curvature can be read.
  const { means: data, cellsX: width, cellsY: height } = averageCells(gray, 1, SMOOTH_SIDE, 3);
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const i = y * width + x;
      const laplacian = 4 * data[i] - data[i - 1] - data[i + 1] - data[i - width] - data[i + width];
      if (Math.abs(laplacian) > SMOOTH_MAX_CURVATURE) return false;
    }
  }
  return true;
}
