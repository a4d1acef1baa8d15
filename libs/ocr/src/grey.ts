import type { GrayImage } from '@loupe/fingerprint';
import type { PixelBox } from './types';

export type { GrayImage };

export function clampBox(box: PixelBox, width: number, height: number): PixelBox {
  const x0 = Math.max(0, Math.min(width, Math.floor(box.x0)));
  const y0 = Math.max(0, Math.min(height, Math.floor(box.y0)));
  return {
    x0,
    y0,
    x1: Math.max(x0, Math.min(width, Math.ceil(box.x1))),
    y1: Math.max(y0, Math.min(height, Math.ceil(box.y1))),
  };
}

export function histogram(g: GrayImage): Uint32Array {
  const h = new Uint32Array(256);
  for (let i = 0; i < g.data.length; i++) h[g.data[i]]++;
  return h;
}

/** Otsu's threshold: the grey level that best separates the histogram into two classes. */
export function otsuThreshold(hist: Uint32Array): number {
  let total = 0;
  let sum = 0;
  for (let i = 0; i < 256; i++) {
    total += hist[i];
    sum += i * hist[i];
  }
  let sumB = 0;
  let weightB = 0;
  let best = 0;
  let bestVar = -1;
  for (let t = 0; t < 256; t++) {
    weightB += hist[t];
    if (weightB === 0) continue;
    const weightF = total - weightB;
    if (weightF === 0) break;
    sumB += t * hist[t];
    const meanB = sumB / weightB;
    const meanF = (sum - sumB) / weightF;
    const between = weightB * weightF * (meanB - meanF) ** 2;
    if (between > bestVar) {
      bestVar = between;
      best = t;
    }
  }
  return best;
}

/** Share of darkest and brightest pixels clipped by the contrast stretch: ignores specks and glare. */
const STRETCH_CLIP = 0.01;

/** Linear stretch so the 1st..99th percentile spans 0..255. */
export function stretchContrast(g: GrayImage): GrayImage {
  const hist = histogram(g);
  const clip = g.data.length * STRETCH_CLIP;
  let lo = 0;
  for (let acc = 0; lo < 255 && acc + hist[lo] <= clip; lo++) acc += hist[lo];
  let hi = 255;
  for (let acc = 0; hi > 0 && acc + hist[hi] <= clip; hi--) acc += hist[hi];
  if (hi <= lo) return g;
  const lut = new Uint8Array(256);
  for (let i = 0; i < 256; i++) lut[i] = Math.max(0, Math.min(255, Math.round(((i - lo) * 255) / (hi - lo))));
  return { ...g, data: g.data.map((v) => lut[v]) };
}

export function binarize(g: GrayImage, threshold: number): GrayImage {
  return { ...g, data: g.data.map((v) => (v > threshold ? 255 : 0)) };
}

/** Bilinear upscale by an integer factor. */
export function upscale(g: GrayImage, factor: number): GrayImage {
  const width = g.width * factor;
  const height = g.height * factor;
  const out = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const sy = Math.min(g.height - 1, Math.max(0, (y + 0.5) / factor - 0.5));
    const y0 = Math.floor(sy);
    const y1 = Math.min(g.height - 1, y0 + 1);
    const fy = sy - y0;
    for (let x = 0; x < width; x++) {
      const sx = Math.min(g.width - 1, Math.max(0, (x + 0.5) / factor - 0.5));
      const x0 = Math.floor(sx);
      const x1 = Math.min(g.width - 1, x0 + 1);
      const fx = sx - x0;
      const top = g.data[y0 * g.width + x0] * (1 - fx) + g.data[y0 * g.width + x1] * fx;
      const bottom = g.data[y1 * g.width + x0] * (1 - fx) + g.data[y1 * g.width + x1] * fx;
      out[y * width + x] = Math.round(top * (1 - fy) + bottom * fy);
    }
  }
  return { data: out, width, height };
}
