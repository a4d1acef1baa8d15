import type { GrayImage, RgbImage } from './types';

/**
 * BT.601 luma, Y = 0.299 R + 0.587 G + 0.114 B, in 8.8 fixed point: the weights
 * 77/150/29 sum to 256, so white stays 255 and no float work is done per pixel.
 */
export function toGray(img: RgbImage): Uint8Array {
  const count = img.width * img.height;
  const gray = new Uint8Array(count);
  const src = img.data;
  for (let i = 0, j = 0; i < count; i++, j += 3) {
    gray[i] = (77 * src[j] + 150 * src[j + 1] + 29 * src[j + 2] + 128) >> 8;
  }
  return gray;
}

/** The image in grey (`toGray`) with its size: what feature extraction and hashing take. */
export function grayImageOf(img: RgbImage): GrayImage {
  return { data: toGray(img), width: img.width, height: img.height };
}
