import { rgbToGray } from '@loupe/fingerprint';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import {} from './grey';
import { BAND_TARGET_HEIGHT, bandMosaic, findTextBands, mosaicToSource } from './text-bands';
import { toRgbImage } from './testing/label-fixtures';

/** A 700×900 label in DejaVu (installed everywhere the tests run): lines at the given sizes and baselines. */
function label(lines: Array<{ text: string; size: number; y: number }>, paper: string, ink: string): string {
  const texts = lines
    .map((l) => `<text x="350" y="${l.y}" font-family="DejaVu Serif" font-size="${l.size}" text-anchor="middle" fill="${ink}">${l.text}</text>`)
    .join('');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="700" height="900"><rect width="100%" height="100%" fill="${paper}"/>` +
    `<rect x="22" y="22" width="656" height="856" fill="none" stroke="${ink}" stroke-width="3"/>${texts}</svg>`
  );
}

const LINES = [
  { text: 'Domaine Rivel', size: 60, y: 150 },
  { text: '2015', size: 150, y: 420 },
  { text: 'Product of France', size: 22, y: 700 },
];

async function grey(svg: string) {
  return rgbToGray(await toRgbImage(sharp(Buffer.from(svg))));
}

describe('text bands', () => {
  it.each([
    ['dark ink on cream stock', '#f4ecd8', '#2b1d12', false],
    ['cream ink on dark stock', '#14233a', '#f1e6c8', true],
  ])('finds one band per printed line, from 22 to 150 px, with its polarity (%s)', async (_name, paper, ink, lightInk) => {
    const bands = findTextBands(await grey(label(LINES, paper, ink)));
    expect(bands).toHaveLength(LINES.length);
    for (const [i, line] of LINES.entries()) {
      const { box } = bands[i];
      // The band holds the line's ink: between its cap top (~0.73 em above the baseline) and its baseline.
      expect(box.y0).toBeGreaterThan(line.y - line.size * 0.85);
      expect(box.y0).toBeLessThan(line.y - line.size * 0.6);
      expect(box.y1).toBeGreaterThanOrEqual(line.y - 2);
      expect(box.y1).toBeLessThan(line.y + line.size * 0.3);
      expect(bands[i].lightInk).toBe(lightInk);
    }
  });

  it('leaves out the border, rules and an all-over picture', async () => {
    const svg =
      `<svg xmlns="http://www.w3.org/2000/svg" width="700" height="900"><rect width="100%" height="100%" fill="#fff"/>` +
      `<rect x="22" y="22" width="656" height="856" fill="none" stroke="#000" stroke-width="3"/>` +
      `<rect x="60" y="300" width="580" height="5" fill="#000"/></svg>`;
    expect(findTextBands(await grey(svg))).toEqual([]);
  });

  it('finds no band in a picture without print: a disc on a plain ground', async () => {
    const svg =
      `<svg xmlns="http://www.w3.org/2000/svg" width="480" height="1000"><rect width="100%" height="100%" fill="#336699"/>` +
      `<circle cx="240" cy="500" r="230" fill="#cc8844"/></svg>`;
    expect(findTextBands(await grey(svg))).toEqual([]);
  });

  it('keeps to the columns of the print it is given: a dark label between light walls', async () => {
    const svg =
      `<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="900"><rect width="100%" height="100%" fill="#c9c2b5"/>` +
      `<rect x="150" y="0" width="700" height="900" fill="#14233a"/>` +
      `<text x="500" y="300" font-family="DejaVu Serif" font-size="60" text-anchor="middle" fill="#f1e6c8">Domaine Rivel</text>` +
      `<text x="500" y="600" font-family="DejaVu Serif" font-size="120" text-anchor="middle" fill="#f1e6c8">2015</text></svg>`;
    const g = await grey(svg);
    // The walls are the light side of the split: every row is "ink" at the sides and the print is lost among it.
    expect(findTextBands(g).every((b) => b.box.x0 < 150 || b.box.x1 > 850)).toBe(true);
    const bands = findTextBands(g, { x0: 200, x1: 800 });
    expect(bands).toHaveLength(2);
    for (const b of bands) {
      expect(b.box.x0).toBeGreaterThan(250);
      expect(b.box.x1).toBeLessThan(750);
    }
    expect(bands[1].box.y1 - bands[1].box.y0).toBeGreaterThan(80);
  });

  it('scales every band to the target height, dark on light, and maps boxes back to the label', async () => {
    const g = await grey(label(LINES, '#14233a', '#f1e6c8'));
    const bands = findTextBands(g);
    const mosaic = bandMosaic(g, bands);
    const vintage = mosaic.placements[1];
    // 150 px figures come out at about the target height: tesseract's comfortable size.
    const inkHeight = (vintage.band.box.y1 - vintage.band.box.y0) * vintage.scale;
    expect(inkHeight).toBeCloseTo(BAND_TARGET_HEIGHT, 0);
    // Inverted: the mosaic's ground is white and its ink dark, whatever the stock.
    const row = vintage.top + Math.round(vintage.height / 2);
    const values = Array.from(mosaic.image.data.subarray(row * mosaic.image.width, (row + 1) * mosaic.image.width));
    expect(Math.min(...values)).toBeLessThan(80);
    expect(values.filter((v) => v > 200).length).toBeGreaterThan(values.length / 2);
    // A box round the whole band in the mosaic maps back onto the band in the label.
    const back = mosaicToSource(mosaic, { x0: 24, y0: vintage.top, x1: 24 + Math.round((vintage.source.x1 - vintage.source.x0) * vintage.scale), y1: vintage.top + vintage.height })!;
    expect(Math.abs(back.x0 - vintage.source.x0)).toBeLessThanOrEqual(2);
    expect(Math.abs(back.x1 - vintage.source.x1)).toBeLessThanOrEqual(2);
    expect(Math.abs(back.y0 - vintage.source.y0)).toBeLessThanOrEqual(2);
    expect(Math.abs(back.y1 - vintage.source.y1)).toBeLessThanOrEqual(2);
  });
});
