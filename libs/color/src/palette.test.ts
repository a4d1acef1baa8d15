import { describe, expect, it } from 'vitest';
import { parseColor } from './color-format';
import { deltaE } from './oklab';
import { extractPalette } from './palette';
import sharp from 'sharp';
import { addNoise, renderSvg, svgDoc } from './test-support/render';
import {
  LOGO_ON_WHITE_SVG,
  PHOTO_PATCHES_SVG,
  PHOTO_PATCHES_WEIGHTS,
  THREE_COLOR_SVG,
  THREE_COLOR_WEIGHTS,
  applyPhotoTexture,
} from './test-support/scenes';
import type { PaletteEntry } from './types';

/** Matches each expected color to the nearest palette entry; returns the weight errors and color distances. */
function compare(palette: PaletteEntry[], expected: readonly (readonly [string, number])[]) {
  return expected.map(([hex, percent]) => {
    const rgb = parseColor(hex).rgb;
    const nearest = palette.reduce((best, e) => (deltaE(e.rgb, rgb) < deltaE(best.rgb, rgb) ? e : best));
    return { hex, weightError: Math.abs(nearest.weight - percent), distance: deltaE(nearest.rgb, rgb), nearest };
  });
}

const meanAbsoluteError = (rows: { weightError: number }[]) => rows.reduce((s, r) => s + r.weightError, 0) / rows.length;

function expectWellFormed(palette: PaletteEntry[]) {
  const sum = palette.reduce((s, e) => s + Math.round(e.weight * 100), 0);
  expect(sum).toBe(10000);
  for (const e of palette) expect(Math.round(e.weight * 100) / 100).toBe(e.weight);
}

describe('palette extraction', () => {
  it('recovers 60/30/10 % of flat colors exactly, classed blue, yellow and white', async () => {
    const palette = extractPalette(await renderSvg(THREE_COLOR_SVG));
    expect(palette).toHaveLength(3);
    expectWellFormed(palette);
    const rows = compare(palette, THREE_COLOR_WEIGHTS);
    for (const r of rows) expect(r.distance).toBeLessThan(1);
    expect(meanAbsoluteError(rows)).toBeLessThanOrEqual(0.5);
    expect(palette.map((e) => e.class)).toEqual(['yellow', 'blue', 'white']);
  });

  it('keeps area weights within 3 points under ±16 levels of noise', async () => {
    const palette = extractPalette(addNoise(await renderSvg(THREE_COLOR_SVG), 16, 7));
    expectWellFormed(palette);
    expect(palette).toHaveLength(3);
    const rows = compare(palette, THREE_COLOR_WEIGHTS);
    for (const r of rows) expect(r.distance).toBeLessThan(3);
    expect(meanAbsoluteError(rows)).toBeLessThanOrEqual(3);
  });

  it('finds the painted patches of a textured photo-like image with their areas and classes', async () => {
    const palette = extractPalette(applyPhotoTexture(await renderSvg(PHOTO_PATCHES_SVG), 3));
    expectWellFormed(palette);
    const rows = compare(palette, PHOTO_PATCHES_WEIGHTS);
    expect(meanAbsoluteError(rows)).toBeLessThanOrEqual(3);
    for (const r of rows) expect(r.distance).toBeLessThan(5);
    expect(rows.map((r) => r.nearest.class.split(',')[0])).toEqual(['green', 'yellow', 'red', 'brown-dark']);
  });

  it('ranks dark greys first, then chromatic colors by hue (red, yellow, green, blue), light greys last', async () => {
    const stripes = ['#ffffff', '#1f4e9c', '#2e7d32', '#c62828', '#111111', '#f2d14a', '#8a2be2'];
    const body = stripes.map((c, i) => `<rect x="${i * 100}" width="100" height="400" fill="${c}"/>`).join('');
    const palette = extractPalette(await renderSvg(svgDoc(700, 400, body)));
    expect(palette.map((e) => e.class)).toEqual(['black', 'red', 'yellow', 'green', 'blue', 'violet', 'white']);
  });

  it('splits a two-stop gradient into a few colors along the ramp, all between its ends', async () => {
    const svg = svgDoc(
      600,
      400,
      '<defs><linearGradient id="g"><stop offset="0" stop-color="#1f4e9c"/><stop offset="1" stop-color="#ffffff"/></linearGradient></defs>' +
        '<rect width="600" height="400" fill="url(#g)"/>',
    );
    const palette = extractPalette(await renderSvg(svg));
    expectWellFormed(palette);
    expect(palette.length).toBeGreaterThanOrEqual(3);
    expect(palette.length).toBeLessThanOrEqual(8);
    const blue = parseColor('1f4e9c').rgb;
    const ends = deltaE(blue, [255, 255, 255]);
    for (const e of palette) {
      // On (or very near) the segment: the two distances to the ends add up to about the whole length.
      expect(deltaE(e.rgb, blue) + deltaE(e.rgb, [255, 255, 255])).toBeLessThan(ends + 4);
    }
  });

  it('honours a smaller target number of colors and caps large targets at 10', async () => {
    const stripes = Array.from({ length: 12 }, (_, i) => `hsl(${i * 30},80%,50%)`);
    const body = stripes.map((c, i) => `<rect x="${i * 50}" width="50" height="400" fill="${c}"/>`).join('');
    const img = await renderSvg(svgDoc(600, 400, body));
    expect(extractPalette(img, { targetColors: 2 }).length).toBeLessThanOrEqual(2);
    expect(extractPalette(img, { targetColors: 50 })).toHaveLength(10);
    // Twelve distinct flat hues are more than the effective maximum: the default palette is as fine as that allows.
    expect(extractPalette(img)).toHaveLength(10);
  });

  it('gives the same palette for the same image every time', async () => {
    const img = applyPhotoTexture(await renderSvg(PHOTO_PATCHES_SVG), 5);
    expect(extractPalette(img)).toEqual(extractPalette(img));
  });

  it('leaves out a white backdrop when asked and renormalises the logo colors to 100', async () => {
    const img = await renderSvg(LOGO_ON_WHITE_SVG);
    const withWhite = extractPalette(img);
    expect(withWhite.map((e) => e.class)).toContain('white');
    const palette = extractPalette(img, { ignoreBackground: true });
    expectWellFormed(palette);
    expect(palette.map((e) => e.class)).toEqual(['red', 'blue']);
    expect(palette[0].weight).toBeCloseTo(66.67, 0);
    expect(palette[1].weight).toBeCloseTo(33.33, 0);
  });

  it('returns no colors when the whole image is background', async () => {
    const img = await renderSvg(svgDoc(100, 100, '<rect width="100" height="100" fill="#ffffff"/>'));
    expect(extractPalette(img)).toEqual([{ rgb: [255, 255, 255], weight: 100, class: 'white' }]);
    expect(extractPalette(img, { ignoreBackground: true })).toEqual([]);
  });

  describe('distinct flat colors (issue 16)', () => {
    // The swatch grid: the first five swatches of the flat UI palette, 100×100 each, and a sixth swatch of
    // white. #1abc9c, #16a085 and #27ae60 are 7.5-8.1 apart and used to come back merged into #1dae81, a color
    // that is in no pixel of the image.
    const FLAT_UI_5 = ['1abc9c', '16a085', '2ecc71', '27ae60', '3498db'];
    const FLAT_UI_10 = [...FLAT_UI_5, '9b59b6', '34495e', 'f1c40f', 'e67e22', 'e74c3c'];

    /** Swatches of 100×100 px in rows of `perRow`, every swatch one flat color. */
    function swatchGrid(hexes: readonly string[], perRow: number): string {
      const rows = Math.ceil(hexes.length / perRow);
      const body = hexes.map((h, i) => `<rect x="${(i % perRow) * 100}" y="${Math.floor(i / perRow) * 100}" width="100" height="100" fill="#${h}"/>`);
      return svgDoc(perRow * 100, rows * 100, body.join(''));
    }

    /** Every swatch is one entry at its own color (ΔE < 1) and area (±1 point); no entry is a color no swatch has. */
    function expectSwatches(palette: PaletteEntry[], hexes: readonly string[], maxDistance = 1) {
      expectWellFormed(palette);
      expect(palette).toHaveLength(hexes.length);
      const rows = compare(palette, hexes.map((h) => [h, 100 / hexes.length] as const));
      for (const r of rows) {
        expect(r.distance, r.hex).toBeLessThan(maxDistance);
        expect(r.weightError, r.hex).toBeLessThanOrEqual(1);
      }
      for (const e of palette) {
        const nearest = Math.min(...hexes.map((h) => deltaE(e.rgb, parseColor(h).rgb)));
        expect(nearest, `entry ${e.rgb} is no swatch's color`).toBeLessThan(maxDistance);
      }
    }

    it('returns the five flat UI swatches and white as six entries at their own colors and areas', async () => {
      const hexes = [...FLAT_UI_5, 'ffffff'];
      expectSwatches(extractPalette(await renderSvg(swatchGrid(hexes, 6))), hexes);
    });

    it('returns ten flat UI swatches as ten entries', async () => {
      expectSwatches(extractPalette(await renderSvg(swatchGrid(FLAT_UI_10, 5))), FLAT_UI_10);
    });

    it('keeps two swatches ΔE_OK 3 apart distinct, and ten when the grid holds more than ten', async () => {
      // #3498db and a blue ΔE_OK 3.06 from it.
      const pair = ['3498db', '2c8ed1'];
      expect(deltaE(parseColor(pair[0]).rgb, parseColor(pair[1]).rgb)).toBeGreaterThan(3);
      expectSwatches(extractPalette(await renderSvg(swatchGrid(pair, 2))), pair);
      const twelve = [...FLAT_UI_10, '95a5a6', 'ecf0f1'];
      expect(extractPalette(await renderSvg(swatchGrid(twelve, 6)))).toHaveLength(10);
    });

    it('keeps the close flat UI greens apart under ±12 levels of noise, at their region colors', async () => {
      // Light grey instead of white: noise on white is clipped at 255, so its region's own color is not #ffffff.
      const hexes = [...FLAT_UI_5, 'ecf0f1'];
      expectSwatches(extractPalette(addNoise(await renderSvg(swatchGrid(hexes, 3)), 12, 5)), hexes);
    });

    it('keeps them apart through JPEG at quality 60', async () => {
      const hexes = [...FLAT_UI_5, 'ffffff'];
      const png = await renderSvg(swatchGrid(hexes, 3));
      const jpeg = await sharp(png.data, { raw: { width: png.width, height: png.height, channels: 3 } }).jpeg({ quality: 60 }).toBuffer();
      const { data, info } = await sharp(jpeg).raw().toBuffer({ resolveWithObject: true });
      const img = { data: new Uint8Array(data), width: info.width, height: info.height };
      expectSwatches(extractPalette(img), hexes, 1.5);
    });

    it('still gives one color for a softly shaded patch with grain', async () => {
      const img = applyPhotoTexture(await renderSvg(svgDoc(600, 400, '<rect width="600" height="400" fill="#2e7d32"/>')), 4);
      const palette = extractPalette(img);
      expect(palette).toHaveLength(1);
      expect(deltaE(palette[0].rgb, parseColor('2e7d32').rgb)).toBeLessThan(3);
    });

    it('collapses a textured gradient between two greens ΔE_OK 6 apart into one color', async () => {
      // Material green 800 and 700: the ends of one softly shaded surface, not two colors of the image.
      const [dark, light] = ['2e7d32', '388e3c'];
      const d = deltaE(parseColor(dark).rgb, parseColor(light).rgb);
      expect(d).toBeGreaterThan(5);
      const ramp = svgDoc(
        600,
        400,
        `<defs><linearGradient id="g"><stop offset="0" stop-color="#${dark}"/><stop offset="1" stop-color="#${light}"/></linearGradient></defs>` +
          '<rect width="600" height="400" fill="url(#g)"/>',
      );
      const palette = extractPalette(applyPhotoTexture(await renderSvg(ramp), 8));
      expect(palette).toHaveLength(1);
      expect(deltaE(palette[0].rgb, parseColor(dark).rgb) + deltaE(palette[0].rgb, parseColor(light).rgb)).toBeLessThan(d + 3);
    });

    it('gives a photo-like image of ten painted patches ten colors by default', async () => {
      const hexes = ['c62828', 'fbc02d', '2e7d32', '1f4e9c', '5d4037', 'f5f5f5', '212121', '8e24aa', 'ef6c00', '00acc1'];
      const body = hexes.map((h, i) => `<rect x="${(i % 5) * 120}" y="${Math.floor(i / 5) * 200}" width="120" height="200" fill="#${h}"/>`);
      const palette = extractPalette(applyPhotoTexture(await renderSvg(svgDoc(600, 400, body.join(''))), 6));
      expect(palette).toHaveLength(10);
      const rows = compare(palette, hexes.map((h) => [h, 10] as const));
      for (const r of rows) expect(r.distance, r.hex).toBeLessThan(5);
    });
  });
});
