import { rgbToGray } from '@loupe/fingerprint';
import type { GrayImage, RgbImage } from './types';

/** The grey pixels of `img` (fingerprint's `rgbToGray`, the one conversion). */
export function toGray(img: RgbImage): Uint8Array {
  return rgbToGray(img).data;
}

/** The image in grey with its size: what feature extraction and hashing take. */
export function grayImageOf(img: RgbImage): GrayImage {
  return rgbToGray(img);
}
