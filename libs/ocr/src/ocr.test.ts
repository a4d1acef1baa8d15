import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intersectionOverUnion } from './box';
import { detectLabel } from './label-detect';
import { parseWineMetadata } from './metadata';
import { normalizeToken } from './normalize';
import { createOcrPool, type OcrPool } from './ocr-pool';
import { labelSvg, LABEL_LINES, renderBottleScene, renderLabel, toRgbImage } from './testing/label-fixtures';

/** Real tesseract runs: three recognitions in all, because each costs 0.2-0.6 s. */
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
});
