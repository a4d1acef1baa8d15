import { assessImage, cropImage, findContentBox, ImageInputError, normalizeImage, RgbImage } from '@loupe/imaging';
import { InputRefusedError } from '../contracts';

/**
 * Smallest side, in pixels, of an image whose label can be read: label print under ~8 px is below what tesseract
 * reads, and at this side a label filling the frame carries its small print at about that size.
 */
export const MIN_LABEL_IMAGE_SIDE = 64;

export function readableSize(img: { width: number; height: number }): boolean {
  return Math.min(img.width, img.height) >= MIN_LABEL_IMAGE_SIDE;
}

export function tooSmallToReadMessage(label: string, img: { width: number; height: number }): string {
  return `${label}: The image is too small to read a label (${img.width}x${img.height} px; at least ${MIN_LABEL_IMAGE_SIDE} px on each side is needed).`;
}

/**
 * Decodes a query image for label reading the way an added image is stored: normalised to the preferred side
 * (never enlarged) and with solid borders cropped, so rectangles refer to the same frame (docs/protocol.md §8).
 * Corrupt, animated, extremely small or single-color images are refused as the caller's error, naming the image.
 */
export async function loadLabelImage(data: Buffer, label: string, preferredSide: number): Promise<RgbImage> {
  try {
    // Normalising reads and validates the whole file (corrupt, truncated, animated): no separate inspection decode.
    const normalized = await normalizeImage(data, { preferredSide });
    const rgb = cropImage(normalized, findContentBox(normalized));
    const assessment = assessImage(rgb, normalized.original);
    if (assessment.reason) throw new InputRefusedError(`${label}: ${assessment.reason}`);
    return rgb;
  } catch (error) {
    if (error instanceof ImageInputError) throw new InputRefusedError(`${label}: ${error.message}`);
    throw error;
  }
}
