import type { BorderBox } from './content-box';
import type { RgbImage } from './types';

/** Copies the box (pixel bounds, right/bottom exclusive) out of a packed RGB image; the whole image returns itself. */
export function cropImage<T extends RgbImage>(img: T, box: BorderBox): RgbImage {
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

