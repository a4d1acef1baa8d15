/**
 * Measures which OCR pre-processing steps help on the rendered test labels: word accuracy (textSimilarity
 * against the printed words) and ms per recognize. Run: npx tsx libs/ocr/src/testing/measure-prepare.ts
 */
import sharp from 'sharp';
import { createOcrPool } from '../ocr-pool';
import type { PrepareOptions } from '../ocr-prepare';
import { textSimilarity } from '../similarity';
import type { RgbImage } from '../types';
import { LABEL_LINES, labelSvg, renderBottleScene, toRgbImage } from './label-fixtures';

async function variants(): Promise<{ name: string; img: RgbImage; region?: { x0: number; y0: number; x1: number; y1: number } }[]> {
  const svg = Buffer.from(labelSvg());
  const flat = await toRgbImage(sharp(svg));
  const small = await toRgbImage(sharp(svg).resize({ width: 200 }));
  const tilted = await toRgbImage(sharp(svg).rotate(8, { background: '#f3ead6' }));
  const dim = await toRgbImage(sharp(svg).resize({ width: 300 }).linear(0.25, 90).blur(1.2));
  const scene = await renderBottleScene();
  return [
    { name: 'flat', img: flat },
    { name: 'small 200px', img: small },
    { name: 'tilted 8deg', img: tilted },
    { name: '300px low contrast+blur', img: dim },
    { name: 'noisy scene crop', img: scene.image, region: scene.labelBox },
  ];
}

const CONFIGS: Record<string, PrepareOptions> = {
  raw: { stretch: false, upscaleBelow: 0, binarize: false, deskew: false, unwrap: false },
  stretch: { stretch: true, upscaleBelow: 0, binarize: false, deskew: false, unwrap: false },
  'stretch+x2': { stretch: true, upscaleBelow: 400, binarize: false, deskew: false, unwrap: false },
  'stretch+x2+otsu': { stretch: true, upscaleBelow: 400, binarize: true, deskew: false, unwrap: false },
  'stretch+x2+deskew': { stretch: true, upscaleBelow: 400, binarize: false, deskew: true, unwrap: false },
  'all': { stretch: true, upscaleBelow: 400, binarize: true, deskew: true, unwrap: false },
};

async function main(): Promise<void> {
  const expected = LABEL_LINES.map((l) => l.text);
  const inputs = await variants();
  for (const [name, prepare] of Object.entries(CONFIGS)) {
    const pool = await createOcrPool({ size: 1, prepare });
    await pool.recognize(inputs[0].img); // warm-up: the first call loads the model
    const row: string[] = [];
    let ms = 0;
    for (const v of inputs) {
      const t0 = performance.now();
      const lines = await pool.recognize(v.img, v.region);
      ms += performance.now() - t0;
      row.push(`${v.name}=${textSimilarity(lines.map((l) => l.text), expected).toFixed(0)}`);
    }
    await pool.close();
    console.log(`${name.padEnd(20)} ${row.join('  ')}  mean ${(ms / inputs.length).toFixed(0)} ms`);
  }
}

void main();
