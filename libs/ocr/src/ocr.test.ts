import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intersectionOverUnion } from './box';
import { detectLabel } from './label-detect';
import { parseWineMetadata } from './metadata';
import { normalizeToken } from './normalize';
import { createOcrPool, type OcrPool } from './ocr-pool';
import { labelSvg, LABEL_LINES, renderBottleScene, renderLabel, toRgbImage } from './testing/label-fixtures';

/** A 700×900 label as wineries print it: the vintage large, in DejaVu (present wherever the tests run). */
function printedLabel(paper: string, ink: string, vintageSize: number): string {
  const lines = [
    { text: 'CHATEAU RIVEL', size: 64 },
    { text: 'Pauillac', size: 40 },
    { text: '2015', size: vintageSize },
    { text: 'Merlot', size: 44 },
    { text: 'Product of France', size: 26 },
  ];
  const gap = (900 - 140 - lines.reduce((s, l) => s + l.size, 0)) / (lines.length + 1);
  let y = 70 + gap;
  const texts = lines.map((l) => {
    const t = `<text x="350" y="${Math.round(y + l.size * 0.8)}" font-family="DejaVu Serif" font-size="${l.size}" font-weight="bold" text-anchor="middle" fill="${ink}">${l.text}</text>`;
    y += l.size + gap;
    return t;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="700" height="900"><rect width="100%" height="100%" fill="${paper}"/>${texts.join('')}</svg>`;
}

/** Real tesseract runs: one or two recognitions per test, because each costs 0.2-0.6 s. */
describe('OCR of rendered wine labels', () => {
  let pool: OcrPool;
  beforeAll(async () => {
    pool = await createOcrPool({ size: 2 });
  });
  afterAll(async () => {
    await pool?.close();
  });

  it('reads every line of a flat label with boxes in label pixels', async () => {
    const img = await renderLabel();
    const t0 = performance.now();
    const lines = await pool.recognize(img);
    console.log(`recognize flat label ${img.width}x${img.height}: ${(performance.now() - t0).toFixed(0)} ms (includes model load)`);
    // The English model has no Â: compare accent-folded text.
    expect(lines.map((l) => normalizeToken(l.text))).toEqual(LABEL_LINES.map((l) => normalizeToken(l.text)));
    const vintage = lines.find((l) => l.text === '2015')!;
    expect(vintage.box.y0).toBeGreaterThan(img.height * 0.3);
    expect(vintage.box.y1).toBeLessThan(img.height * 0.65);
  });

  it('reads a label tilted by 6° after deskewing, with boxes mapped back onto the tilted image', async () => {
    const img = await toRgbImage(sharp(Buffer.from(labelSvg())).rotate(6, { background: '#f3ead6' }));
    const t0 = performance.now();
    const lines = await pool.recognize(img);
    console.log(`recognize tilted label ${img.width}x${img.height}: ${(performance.now() - t0).toFixed(0)} ms`);
    const meta = parseWineMetadata(lines, img);
    expect(meta).toMatchObject({ region_name: 'Pauillac', variety_type: 'Cabernet Sauvignon', vintage_year: 2015, country_name: 'France' });
    for (const l of lines) {
      expect(l.box.x1).toBeLessThanOrEqual(img.width);
      expect(l.box.y1).toBeLessThanOrEqual(img.height);
    }
  });

  it('finds and reads the label on a bottle photo', async () => {
    const { image, labelBox } = await renderBottleScene(3);
    const box = detectLabel(image);
    expect(box && intersectionOverUnion(box, labelBox)).toBeGreaterThanOrEqual(0.7);
    const t0 = performance.now();
    const lines = await pool.recognize(image, box!);
    console.log(`recognize label region of a 800x1000 photo: ${(performance.now() - t0).toFixed(0)} ms`);
    const meta = parseWineMetadata(lines, image, box!);
    expect(meta).toMatchObject({
      region_name: 'Pauillac',
      variety_type: 'Cabernet Sauvignon',
      vintage_year: 2015,
      country_name: 'France',
      country_name_inferred: 'France',
      label_rect: { left: 23.75, right: 76.25, top: 42, bottom: 78 },
    });
    for (const l of lines) {
      expect(l.box.x0).toBeGreaterThanOrEqual(labelBox.x0);
      expect(l.box.y0).toBeGreaterThanOrEqual(labelBox.y0);
    }
  });

  it.each([
    ['dark on cream', '#f4ecd8', '#2b1d12'],
    ['cream on dark stock', '#14233a', '#f1e6c8'],
  ])('reads a vintage printed 140 px high and a capital-led producer line (%s)', async (_name, paper, ink) => {
    const img = await toRgbImage(sharp(Buffer.from(printedLabel(paper, ink, 140))).rotate(2, { background: paper }));
    const lines = await pool.recognize(img);
    const meta = parseWineMetadata(lines, img);
    expect(meta).toMatchObject({ vintage_year: 2015, region_name: 'Pauillac', variety_type: 'Merlot', country_name: 'France' });
    expect(lines.map((l) => l.text)).toContain('CHATEAU RIVEL');
    // The year's box is the big print's, in the label's pixels.
    const year = lines.find((l) => l.text.includes('2015'))!;
    expect(year.box.y1 - year.box.y0).toBeGreaterThan(80);
  });

  it('reads the small lines under a producer line printed 84 px high', async () => {
    // Tesseract's page layout alone returns only the big line here; the second reading of the bands finds the rest.
    const svg =
      `<svg xmlns="http://www.w3.org/2000/svg" width="1100" height="900"><rect width="100%" height="100%" fill="#f4ecd8"/>` +
      `<text x="550" y="200" font-family="DejaVu Serif" font-size="84" font-weight="bold" text-anchor="middle" fill="#7b2d26">CHATEAU MARGAUX</text>` +
      `<text x="550" y="400" font-family="DejaVu Serif" font-size="40" text-anchor="middle" fill="#2b1d12">Pauillac</text>` +
      `<text x="550" y="600" font-family="DejaVu Serif" font-size="30" text-anchor="middle" fill="#2b1d12">Product of France</text></svg>`;
    const lines = await pool.recognize(await toRgbImage(sharp(Buffer.from(svg))));
    expect(lines.map((l) => l.text)).toEqual(['CHATEAU MARGAUX', 'Pauillac', 'Product of France']);
  });
});
