import sharp from 'sharp';
import type { RgbImage } from '../types';
import { seededRandom } from '@loupe/fingerprint';

/** Renders an SVG document to packed RGB pixels (alpha flattened onto white). */
export async function renderSvg(svg: string): Promise<RgbImage> {
  const { data, info } = await sharp(Buffer.from(svg))
    .flatten({ background: '#ffffff' })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height };
}

export { seededRandom } from '@loupe/fingerprint';

/** Adds uniform noise of ±amplitude levels to every channel, clamped to 0-255. */
export function addNoise(img: RgbImage, amplitude: number, seed: number): RgbImage {
  const random = seededRandom(seed);
  const data = new Uint8Array(img.data.length);
  for (let i = 0; i < data.length; i++) {
    const v = img.data[i] + Math.round((random() * 2 - 1) * amplitude);
    data[i] = Math.min(255, Math.max(0, v));
  }
  return { data, width: img.width, height: img.height };
}

/** An SVG document of the given size holding the given body. */
export function svgDoc(width: number, height: number, body: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${body}</svg>`;
}
