import sharp from 'sharp';
import type { Sharp } from 'sharp';
import type { RgbImage } from './types';

/** High enough that re-encoded crops and overlays show no visible blocking, at about a third of q100's size. */
export const DEFAULT_JPEG_QUALITY = 90;

const rawInput = (img: RgbImage): Sharp =>
  sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 } });

export async function encodeJpeg(img: RgbImage, quality: number = DEFAULT_JPEG_QUALITY): Promise<Buffer> {
  return rawInput(img).jpeg({ quality }).toBuffer();
}

export async function encodePng(img: RgbImage): Promise<Buffer> {
  return rawInput(img).png().toBuffer();
}
