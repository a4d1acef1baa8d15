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
  const { data, width, height } = averagedDown(gray, SMOOTH_SIDE);
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const i = y * width + x;
      const laplacian = 4 * data[i] - data[i - 1] - data[i + 1] - data[i - width] - data[i + width];
      if (Math.abs(laplacian) > SMOOTH_MAX_CURVATURE) return false;
    }
  }
  return true;
}

/** `gray` averaged over the cells of a grid of `side` cells on its longer side (every pixel counted in one cell). */
function averagedDown(gray: GrayImage, side: number): { data: Float32Array; width: number; height: number } {
  const factor = Math.min(1, side / Math.max(gray.width, gray.height));
  const width = Math.max(3, Math.round(gray.width * factor));
  const height = Math.max(3, Math.round(gray.height * factor));
  const sums = new Float32Array(width * height);
  const counts = new Uint32Array(width * height);
  const cellX = Int32Array.from({ length: gray.width }, (_, x) => Math.min(width - 1, Math.floor((x * width) / gray.width)));
  for (let y = 0; y < gray.height; y++) {
    const row = Math.min(height - 1, Math.floor((y * height) / gray.height)) * width;
    for (let x = 0; x < gray.width; x++) {
      sums[row + cellX[x]] += gray.data[y * gray.width + x];
      counts[row + cellX[x]]++;
    }
  }
  for (let i = 0; i < sums.length; i++) sums[i] /= counts[i] || 1;
  return { data: sums, width, height };
}
