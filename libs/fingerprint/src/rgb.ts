import type { GrayImage, RgbImage } from './types';

/** Pixel bounds inside an image; right and bottom exclusive. */
export interface PixelBox {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** Copies the box out of a packed RGB image; the whole image returns itself. */
export function cropRgb(img: RgbImage, box: PixelBox): RgbImage {
  if (box.left === 0 && box.top === 0 && box.right === img.width && box.bottom === img.height) return img;
  const width = box.right - box.left;
  const height = box.bottom - box.top;
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    const from = ((box.top + y) * img.width + box.left) * 3;
    data.set(img.data.subarray(from, from + width * 3), y * width * 3);
  }
  return { data, width, height };
}

/** A pixel rectangle; x1 and y1 exclusive. */
export interface PixelRegion {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/**
 * The image (or the whole pixels of `region` inside it) in grey: BT.601 luma, Y = 0.299 R + 0.587 G + 0.114 B, in 8.8 fixed
 * point (77/150/29 sum to 256, so white stays 255; rounded). Loupe's one grey conversion: features, hashes and OCR all
 * see the same grey, and stored fingerprints depend on it, so it must not change.
 */
export function rgbToGray(img: RgbImage, region: PixelRegion = { x0: 0, y0: 0, x1: img.width, y1: img.height }): GrayImage {
  if (img.data.length !== img.width * img.height * 3) throw new RangeError('RgbImage data length must be width*height*3');
  // Whole pixels inside the image: the region's edges rounded outwards, then clipped.
  const x0 = Math.max(0, Math.min(img.width, Math.floor(region.x0)));
  const y0 = Math.max(0, Math.min(img.height, Math.floor(region.y0)));
  const width = Math.max(x0, Math.min(img.width, Math.ceil(region.x1))) - x0;
  const height = Math.max(y0, Math.min(img.height, Math.ceil(region.y1))) - y0;
  const gray = new Uint8Array(width * height);
  const src = img.data;
  for (let y = 0, dst = 0; y < height; y++) {
    for (let x = 0, i = ((y0 + y) * img.width + x0) * 3; x < width; x++, i += 3) {
      gray[dst++] = (77 * src[i] + 150 * src[i + 1] + 29 * src[i + 2] + 128) >> 8;
    }
  }
  return { data: gray, width, height };
}
