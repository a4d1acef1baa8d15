import { describe, expect, it } from 'vitest';
import { classifyColor } from './classify';
import { parseColor } from './color-format';
import { extractPalette } from './palette';
import { colorSearchScore } from './search-score';
import { renderSvg } from './test-support/render';
import { PHOTO_PATCHES_SVG, applyPhotoTexture } from './test-support/scenes';

/**
 * Budgets with headroom over what this 2-core machine measures alone (palette ~20-40 ms, score ~30-70 µs), so a
 * regression of an order of magnitude fails while scheduler noise does not.
 */
const PALETTE_MS_BUDGET = 150;
const SCORE_US_BUDGET = 500;

describe('speed', () => {
  it('extracts the palette of a textured 600×400 image in well under a search budget', async () => {
    const img = applyPhotoTexture(await renderSvg(PHOTO_PATCHES_SVG), 9);
    extractPalette(img, { ignoreBackground: true });
    const runs = 10;
    const start = performance.now();
    for (let i = 0; i < runs; i++) extractPalette(img, { ignoreInteriorBackground: true });
    const ms = (performance.now() - start) / runs;
    console.log(`extractPalette 600x400 textured, with background detection: ${ms.toFixed(1)} ms`);
    expect(ms).toBeLessThan(PALETTE_MS_BUDGET);
  });

  it('scores a 5-color query against an 8-color palette in microseconds', () => {
    const hex = ['1f4e9c', 'f2d14a', 'ffffff', 'd81e1e', '2e7d32', '5d4037', '8a2be2', '111111'];
    const palette = hex.map((h) => ({ rgb: parseColor(h).rgb, weight: 12.5, class: classifyColor(parseColor(h).rgb) }));
    const query = ['3366cc', 'ffd700', 'ff8c00', '4caf50'].map((h) => ({ rgb: parseColor(h).rgb, weight: 20 }));
    const all = [...query, { rgb: 'wildcard' as const, weight: 20 }];
    const runs = 2000;
    for (let i = 0; i < 2000; i++) colorSearchScore(all, palette);
    const start = performance.now();
    for (let i = 0; i < runs; i++) colorSearchScore(all, palette);
    const us = ((performance.now() - start) * 1000) / runs;
    console.log(`colorSearchScore 5x8: ${us.toFixed(1)} µs`);
    expect(us).toBeLessThan(SCORE_US_BUDGET);
  });
});
