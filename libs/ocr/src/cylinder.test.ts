import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimateCylinder, unwrapCylinder } from './cylinder';
import type { GrayImage } from './grey';
import { createOcrPool, type OcrPool } from './ocr-pool';
import { DEFAULT_PREPARE, labelCylinder, UNWRAP_BELOW_SQUEEZE } from './ocr-prepare';
import { FULL_WIDTH_LINES, fullWidthLabel, wrapOnCylinder } from './testing/label-fixtures';

const WIDTH = 600;
const HEIGHT = 760;

/** A label of centred lines in one face, grey, as printed (flat). */
async function printedGrey(lines: string[], face = 'DejaVu Serif', dark = false): Promise<GrayImage> {
  const step = HEIGHT / (lines.length + 1);
  const texts = lines.map(
    (text, i) =>
      `<text x="${WIDTH / 2}" y="${Math.round(step * (i + 1) + 12)}" font-family="${face}" font-size="${i === 2 ? 64 : 38}" ` +
      `text-anchor="middle" fill="${dark ? '#f0e6c8' : '#2a1d14'}">${text}</text>`,
  );
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}"><rect width="100%" height="100%" fill="${dark ? '#14233a' : '#f4ecd8'}"/>${texts.join('')}</svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).greyscale().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

const LINES = ['MAISON DUVERGIER', 'Coteaux du Layon', '2018', 'Chenin Blanc Moelleux', 'Vin Blanc de Loire', 'Mis en bouteille au Domaine', 'Produit de France'];

/** The label wrapped over ±halfAngle of a cylinder and seen from the front (linear sampling along the arc). */
function wrap(g: GrayImage, halfAngle: number): GrayImage {
  const radius = g.width / (2 * halfAngle);
  const width = Math.round(2 * radius * Math.sin(halfAngle));
  const out = new Uint8Array(width * g.height);
  for (let x = 0; x < width; x++) {
    const theta = Math.asin(Math.max(-1, Math.min(1, (x + 0.5 - width / 2) / radius)));
    const u = Math.min(g.width - 1.001, Math.max(0, radius * theta + g.width / 2 - 0.5));
    const a = Math.floor(u);
    const f = u - a;
    for (let y = 0; y < g.height; y++) out[y * width + x] = Math.round(g.data[y * g.width + a] * (1 - f) + g.data[y * g.width + a + 1] * f);
  }
  return { data: out, width, height: g.height };
}

/** Ink columns (dark pixels) per column band of the label's width: where the print is and how wide. */
function inkColumns(g: GrayImage, x0: number, x1: number, y0: number, y1: number): number {
  let n = 0;
  for (let x = x0; x < x1; x++) {
    let any = false;
    for (let y = y0; y < y1 && !any; y++) any = g.data[y * g.width + x] < 128;
    if (any) n++;
  }
  return n;
}

describe('cylinder unwrap', () => {
  it('finds no curvature on a flat label, in a serif and a sans face, dark or light stock', async () => {
    for (const [face, dark] of [['DejaVu Serif', false], ['DejaVu Sans', true]] as const) {
      const fit = estimateCylinder(await printedGrey(LINES, face, dark));
      expect(fit).not.toBeNull();
      expect(fit!.edgeSqueeze).toBeGreaterThan(0.85);
      expect(fit!.edgeSqueeze).toBeGreaterThanOrEqual(UNWRAP_BELOW_SQUEEZE);
    }
  });

  it('tells a label wrapped a third of the way round the bottle from a flat one, from the print alone', async () => {
    // Seven lines give each column bin a few glyphs each, so the squeeze is read to about ±0.15: enough to tell a
    // label wrapped far round (where unwrapping may pay) from a flat one, not to grade mild wraps.
    for (const [face, dark] of [['DejaVu Serif', false], ['DejaVu Sans', true]] as const) {
      const flat = await printedGrey(LINES, face, dark);
      const halfAngle = 1.3;
      const fit = estimateCylinder(wrap(flat, halfAngle));
      expect(fit).not.toBeNull();
      expect(fit!.edgeSqueeze).toBeLessThan(UNWRAP_BELOW_SQUEEZE);
      // The longest line ends short of the label's edges, so its far side is a little less far round.
      const printAngle = Math.asin(Math.sin(halfAngle) * 0.85);
      expect(Math.abs(Math.acos(fit!.edgeSqueeze) - printAngle)).toBeLessThan(0.3);
    }
  });

  it('gives the print at the sides back its printed width', async () => {
    // A row of identical words: after wrapping, those at the sides are squeezed; unwrapped, they match the middle.
    const svg =
      `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}"><rect width="100%" height="100%" fill="#fff"/>` +
      [120, 240, 360, 480, 600]
        .map((y) => ['HM', 'HM', 'HM', 'HM', 'HM'].map((t, i) => `<text x="${60 + i * 120}" y="${y}" font-family="DejaVu Sans" font-size="40" text-anchor="middle" fill="#000">${t}</text>`).join(''))
        .join('') +
      `</svg>`;
    const { data, info } = await sharp(Buffer.from(svg)).greyscale().raw().toBuffer({ resolveWithObject: true });
    const flat = { data: new Uint8Array(data), width: info.width, height: info.height };
    const wrapped = wrap(flat, 1.2);
    const fit = estimateCylinder(wrapped)!;
    expect(fit.edgeSqueeze).toBeLessThan(0.6);
    const { image, toSourceX } = unwrapCylinder(wrapped, fit);
    // Ink width of the first and middle word in each image (the words sit at fifths of the width).
    const widths = (g: GrayImage) => [0, 2].map((k) => inkColumns(g, Math.round((k * g.width) / 5), Math.round(((k + 1) * g.width) / 5), 80, 130));
    const [sideFlat, middleFlat] = widths(flat);
    expect(sideFlat / middleFlat).toBeGreaterThan(0.95);
    const [sideWrapped, middleWrapped] = widths(wrapped);
    expect(sideWrapped / middleWrapped).toBeLessThan(0.7);
    const [sideUnwrapped, middleUnwrapped] = widths(image);
    expect(sideUnwrapped / middleUnwrapped).toBeGreaterThan(0.85);
    expect(sideUnwrapped / middleUnwrapped).toBeLessThan(1.15);
    // Columns map back monotonically into the wrapped image.
    expect(toSourceX(0)).toBeGreaterThanOrEqual(-1);
    expect(toSourceX(image.width)).toBeLessThanOrEqual(wrapped.width + 1);
    expect(toSourceX(image.width / 2)).toBeCloseTo(wrapped.width / 2, -1);
  });

  it('leaves a flat label as it is', async () => {
    const flat = await printedGrey(LINES);
    const unwrapped = unwrapCylinder(flat, { centreX: flat.width / 2, radius: Infinity, edgeSqueeze: 1 });
    expect(unwrapped.image).toBe(flat);
    expect(unwrapped.toSourceX(123)).toBe(123);
  });

  it('says nothing about a label without print', () => {
    const blank = { data: new Uint8Array(WIDTH * HEIGHT).fill(240), width: WIDTH, height: HEIGHT };
    expect(estimateCylinder(blank)).toBeNull();
  });
});

describe('reading a label wrapped far round a bottle', () => {
  let unwrapping: OcrPool;
  let plain: OcrPool;
  beforeAll(async () => {
    // The automatic unwrap (estimate every label's cylinder) against the default, which reads the photo as it is.
    [unwrapping, plain] = await Promise.all([createOcrPool({ size: 1, prepare: { ...DEFAULT_PREPARE, unwrap: true } }), createOcrPool({ size: 1 })]);
  });
  afterAll(async () => {
    await Promise.all([unwrapping?.close(), plain?.close()]);
  });

  it('reads the squeezed ends of a line once the label is unwrapped, with boxes in the photo', async () => {
    // Wrapped over ±1.4 rad: the capitals at the line's ends are squeezed to a fifth of their width.
    const img = wrapOnCylinder(await fullWidthLabel(), 1.4);
    const read = await unwrapping.recognize(img);
    expect(read.map((l) => l.text)).toEqual(FULL_WIDTH_LINES);
    // Boxes are mapped back through the unwrap: the first line spans the wrapped photo's width.
    expect(read[0].box.x0).toBeLessThan(0.05 * img.width);
    expect(read[0].box.x1).toBeGreaterThan(0.95 * img.width);
    // Without the unwrap, tesseract loses the squeezed letters at both ends of the capitals.
    const without = await plain.recognize(img);
    expect(without[0].text).not.toBe(FULL_WIDTH_LINES[0]);
    // Given the cylinder explicitly, the default pool lays the label flat too.
    const given = await plain.recognize(img, undefined, { cylinder: labelCylinder(img) });
    expect(given[0].text).toBe(FULL_WIDTH_LINES[0]);
  });
});
