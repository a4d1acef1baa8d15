import sharp from 'sharp';
import type { PixelBox, RgbImage } from '../types';
import { seededRandom as mulberry32 } from '@loupe/fingerprint';

/** Test images for OCR and label detection, rendered from SVG so no binary files are committed. */

export const LABEL_LINES = [
  { text: 'CHÂTEAU EXAMPLE', size: 34, weight: 'bold' },
  { text: 'Pauillac', size: 30, weight: 'normal' },
  { text: '2015', size: 30, weight: 'bold' },
  { text: 'Cabernet Sauvignon', size: 26, weight: 'normal' },
  { text: 'Grand Vin de Bordeaux', size: 22, weight: 'normal' },
  { text: 'Product of France', size: 18, weight: 'normal' },
] as const;

export const LABEL_SIZE = { width: 420, height: 360 };

function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function labelSvg(scale = 1): string {
  const { width, height } = LABEL_SIZE;
  const step = height / (LABEL_LINES.length + 1);
  const texts = LABEL_LINES.map(
    (l, i) =>
      `<text x="${width / 2}" y="${Math.round(step * (i + 1) + l.size / 3)}" font-family="DejaVu Serif, serif" ` +
      `font-size="${l.size}" font-weight="${l.weight}" text-anchor="middle" fill="#2a1d14">${escapeXml(l.text)}</text>`,
  ).join('');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width * scale}" height="${height * scale}" viewBox="0 0 ${width} ${height}">` +
    `<rect width="100%" height="100%" fill="#f3ead6"/>` +
    `<rect x="10" y="10" width="${width - 20}" height="${height - 20}" fill="none" stroke="#8a6d3b" stroke-width="3"/>` +
    texts +
    `</svg>`
  );
}

export async function toRgbImage(input: ReturnType<typeof sharp>): Promise<RgbImage> {
  const { data, info } = await input.removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height };
}

/** The label alone, flat and upright, as a scanned label would be. */
export async function renderLabel(scale = 1): Promise<RgbImage> {
  return toRgbImage(sharp(Buffer.from(labelSvg(scale))));
}


/** Peak-to-peak per-pixel noise: heavy enough to make the background busy at pixel level. */
const NOISE_AMPLITUDE = 60;

/**
 * A bottle photo: cluttered noisy background (coloured shapes plus per-pixel noise), a dark green bottle,
 * and the label composited on the bottle's body. Returns the scene and the true label box.
 */
export async function renderBottleScene(seed = 7): Promise<{ image: RgbImage; labelBox: PixelBox }> {
  const width = 800;
  const height = 1000;
  const rand = mulberry32(seed);
  const shapes: string[] = [];
  for (let i = 0; i < 40; i++) {
    const fill = `rgb(${Math.floor(rand() * 256)},${Math.floor(rand() * 256)},${Math.floor(rand() * 256)})`;
    const x = Math.floor(rand() * width);
    const y = Math.floor(rand() * height);
    if (rand() < 0.5) shapes.push(`<circle cx="${x}" cy="${y}" r="${20 + Math.floor(rand() * 80)}" fill="${fill}"/>`);
    else shapes.push(`<rect x="${x}" y="${y}" width="${30 + Math.floor(rand() * 150)}" height="${30 + Math.floor(rand() * 150)}" fill="${fill}"/>`);
  }
  const bottle =
    `<rect x="340" y="40" width="120" height="220" rx="20" fill="#14261a"/>` +
    `<rect x="150" y="220" width="500" height="740" rx="70" fill="#1b3322"/>`;
  const scene = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    `<rect width="100%" height="100%" fill="#7a7060"/>${shapes.join('')}${bottle}</svg>`;
  const label = await sharp(Buffer.from(labelSvg())).png().toBuffer();
  const labelBox = { x0: 190, y0: 420, x1: 190 + LABEL_SIZE.width, y1: 420 + LABEL_SIZE.height };
  const composed = await toRgbImage(
    sharp(Buffer.from(scene)).composite([{ input: label, left: labelBox.x0, top: labelBox.y0 }]),
  );
  // Sensor noise over everything, label included, so no region is perfectly flat.
  const data = composed.data;
  for (let i = 0; i < data.length; i++) {
    const v = data[i] + Math.round((rand() - 0.5) * NOISE_AMPLITUDE);
    data[i] = v < 0 ? 0 : v > 255 ? 255 : v;
  }
  return { image: composed, labelBox };
}

/** The label wrapped over ±halfAngle of a cylinder and seen from the front (linear sampling along the arc). */
export function wrapOnCylinder(img: RgbImage, halfAngle: number): RgbImage {
  const radius = img.width / (2 * halfAngle);
  const width = Math.round(2 * radius * Math.sin(halfAngle));
  const out = new Uint8Array(width * img.height * 3);
  for (let x = 0; x < width; x++) {
    const theta = Math.asin(Math.max(-1, Math.min(1, (x + 0.5 - width / 2) / radius)));
    const u = Math.min(img.width - 1.001, Math.max(0, radius * theta + img.width / 2 - 0.5));
    const a = Math.floor(u);
    const f = u - a;
    for (let y = 0; y < img.height; y++) {
      for (let c = 0; c < 3; c++) {
        const s = (y * img.width + a) * 3 + c;
        out[(y * width + x) * 3 + c] = Math.round(img.data[s] * (1 - f) + img.data[s + 3] * f);
      }
    }
  }
  return { data: out, width, height: img.height };
}

export const FULL_WIDTH_LINES = ['SAUVIGNON BLANC RESERVE', 'Marlborough New Zealand', 'Estate grown and bottled', 'Alc 13.5% vol 750 ml'];

/** A 700×500 label whose lines are set to its full width, so their ends lie where a bottle squeezes them most. */
export async function fullWidthLabel(): Promise<RgbImage> {
  const w = 700;
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="500"><rect width="100%" height="100%" fill="#f4ecd8"/>` +
    FULL_WIDTH_LINES.map(
      (t, i) =>
        `<text x="${w / 2}" y="${100 + i * 110}" font-family="DejaVu Serif" font-size="44" text-anchor="middle" textLength="${w - 40}" ` +
        `lengthAdjust="spacingAndGlyphs" fill="#2a1d14">${escapeXml(t)}</text>`,
    ).join('') +
    '</svg>';
  return toRgbImage(sharp(Buffer.from(svg)));
}
