import { seededRandom, svgDoc } from './render';
import type { RgbImage } from '../types';

/** 600×400 with exactly 60 % #1f4e9c, 30 % #f2d14a, 10 % white, in pixel-aligned rectangles. */
export const THREE_COLOR_SVG = svgDoc(
  600,
  400,
  '<rect width="600" height="400" fill="#1f4e9c"/>' +
    '<rect x="360" width="240" height="300" fill="#f2d14a"/>' +
    '<rect x="360" y="300" width="240" height="100" fill="#ffffff"/>',
);
export const THREE_COLOR_WEIGHTS: readonly (readonly [hex: string, percent: number])[] = [
  ['1f4e9c', 60],
  ['f2d14a', 30],
  ['ffffff', 10],
];

/**
 * Four painted patches (40/30/20/10 % of 600×400) under photo-like texture: a smooth lighting ripple of
 * ±8 % brightness plus ±10 levels of grain, so no two pixels share a color yet each patch keeps its mean color.
 */
export const PHOTO_PATCHES_SVG = svgDoc(
  600,
  400,
  '<rect width="600" height="400" fill="#2e7d32"/>' +
    '<rect x="240" width="360" height="400" fill="#c62828"/>' +
    '<rect x="240" y="0" width="360" height="200" fill="#fbc02d"/>' +
    '<rect x="480" y="200" width="120" height="200" fill="#5d4037"/>',
);
// Painted over one another: green 240×400 = 96000 px (40 %), yellow 360×200 = 72000 (30 %),
// red 360×200 − brown = 48000 (20 %), brown 120×200 = 24000 (10 %).
export const PHOTO_PATCHES_WEIGHTS: readonly (readonly [hex: string, percent: number])[] = [
  ['2e7d32', 40],
  ['fbc02d', 30],
  ['c62828', 20],
  ['5d4037', 10],
];

export function applyPhotoTexture(img: RgbImage, seed: number): RgbImage {
  const random = seededRandom(seed);
  const data = new Uint8Array(img.data.length);
  for (let y = 0; y < img.height; y++) {
    for (let x = 0; x < img.width; x++) {
      const light = 1 + 0.08 * Math.sin(x / 23) * Math.cos(y / 17);
      for (let c = 0; c < 3; c++) {
        const i = 3 * (y * img.width + x) + c;
        const v = img.data[i] * light + (random() * 2 - 1) * 10;
        data[i] = Math.min(255, Math.max(0, Math.round(v)));
      }
    }
  }
  return { data, width: img.width, height: img.height };
}

/** A logo of two rectangles (#c62828 and #1f4e9c) on a white backdrop. */
export const LOGO_ON_WHITE_SVG = svgDoc(
  600,
  400,
  '<rect width="600" height="400" fill="#ffffff"/>' +
    '<rect x="100" y="100" width="200" height="200" fill="#c62828"/>' +
    '<rect x="300" y="150" width="200" height="100" fill="#1f4e9c"/>',
);
// red 200×200 = 40000, blue 200×100 = 20000: without the white, red 66.67 %, blue 33.33 %.

/** A black ring on white whose hole shows the white background again (interior background). */
export const RING_SVG = svgDoc(
  600,
  400,
  '<rect width="600" height="400" fill="#ffffff"/>' +
    '<circle cx="300" cy="200" r="150" fill="#222222"/>' +
    '<circle cx="300" cy="200" r="80" fill="#ffffff"/>',
);
