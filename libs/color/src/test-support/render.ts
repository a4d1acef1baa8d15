import sharp from 'sharp';
import type { RgbImage } from '../types';

/** Renders an SVG document to packed RGB pixels (alpha flattened onto white). */
export async function renderSvg(svg: string): Promise<RgbImage> {
  const { data, info } = await sharp(Buffer.from(svg))
    .flatten({ background: '#ffffff' })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height };
}

/** Small deterministic PRNG (mulberry32) so noisy test images are identical on every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

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
