import type { GrayImage, RgbImage } from './types';

/** ITU-R BT.601 luma, the weights sharp and OpenCV use for grey conversion. */
export function rgbToGray(img: RgbImage): GrayImage {
  const n = img.width * img.height;
  if (img.data.length !== n * 3) throw new RangeError('RgbImage data length must be width*height*3');
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.round(0.299 * img.data[3 * i] + 0.587 * img.data[3 * i + 1] + 0.114 * img.data[3 * i + 2]);
  return { data: out, width: img.width, height: img.height };
}
