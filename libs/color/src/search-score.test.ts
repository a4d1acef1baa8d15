import { describe, expect, it } from 'vitest';
import { classifyColor } from './classify';
import { parseColor } from './color-format';
import { extractPalette, paletteFromImageForQuery } from './palette';
import { colorSearchScore } from './search-score';
import { renderSvg, svgDoc } from './test-support/render';
import { THREE_COLOR_SVG } from './test-support/scenes';
import type { PaletteEntry, Rgb } from './types';

const rgb = (hex: string) => parseColor(hex).rgb;
const entry = (hex: string, weight: number): PaletteEntry => ({ rgb: rgb(hex), weight, class: classifyColor(rgb(hex)) });
const only = (hex: string) => [{ rgb: rgb(hex) as Rgb | 'wildcard', weight: 100 }];

describe('color search score', () => {
  const blue97 = [entry('1f4e9c', 97), entry('f2d14a', 3)];

  it('scores an image that is 97 % the query blue at 90 or more', () => {
    expect(colorSearchScore(only('1f4e9c'), blue97)).toBeGreaterThanOrEqual(90);
  });

  it('scores a clearly different blue between 40 and 70', () => {
    const royal = [entry('4169e1', 97), entry('f2d14a', 3)];
    const score = colorSearchScore(only('1f4e9c'), royal);
    expect(score).toBeGreaterThanOrEqual(40);
    expect(score).toBeLessThanOrEqual(70);
  });

  it('scores a red image under 10 for a blue query', () => {
    expect(colorSearchScore(only('1f4e9c'), [entry('d81e1e', 100)])).toBeLessThan(10);
    expect(colorSearchScore(only('1f4e9c'), [entry('c62828', 100)])).toBeLessThan(10);
  });

  it('ranks a closer shade above a farther one above an unrelated color', () => {
    const query = only('1f4e9c');
    const close = colorSearchScore(query, [entry('2a5aa8', 100)]);
    const far = colorSearchScore(query, [entry('1e90ff', 100)]);
    const unrelated = colorSearchScore(query, [entry('2e7d32', 100)]);
    expect(close).toBeGreaterThan(far);
    expect(far).toBeGreaterThan(unrelated);
  });

  it('credits a two-color query by how much of each color the image holds', () => {
    const query = [
      { rgb: rgb('1f4e9c'), weight: 50 },
      { rgb: rgb('f2d14a'), weight: 50 },
    ];
    const both = colorSearchScore(query, [entry('1f4e9c', 50), entry('f2d14a', 50)]);
    const blueOnly = colorSearchScore(query, [entry('1f4e9c', 100)]);
    expect(both).toBeGreaterThan(99);
    expect(blueOnly).toBeGreaterThan(45);
    expect(blueOnly).toBeLessThan(60);
  });

  it('lets a wildcard weight match whatever else the image holds', () => {
    const query = [
      { rgb: rgb('1f4e9c'), weight: 40 },
      { rgb: 'wildcard' as const, weight: 60 },
    ];
    expect(colorSearchScore(query, [entry('1f4e9c', 40), entry('d81e1e', 60)])).toBeGreaterThan(99);
    // The wildcard's 60 plus the little that red resembles the blue.
    const redOnly = colorSearchScore(query, [entry('d81e1e', 100)]);
    expect(redOnly).toBeGreaterThanOrEqual(60);
    expect(redOnly).toBeLessThan(63);
    expect(colorSearchScore([{ rgb: 'wildcard', weight: 100 }], [entry('d81e1e', 100)])).toBe(100);
  });

  it('scores an empty palette or an empty query 0', () => {
    expect(colorSearchScore(only('1f4e9c'), [])).toBe(0);
    expect(colorSearchScore([], blue97)).toBe(0);
  });

  it('scores an image against its own palette as a query near 100, and against another image low', async () => {
    const img = await renderSvg(THREE_COLOR_SVG);
    const query = paletteFromImageForQuery(img);
    expect(colorSearchScore(query, extractPalette(img))).toBeGreaterThan(99);
    const red = await renderSvg(svgDoc(60, 40, '<rect width="60" height="40" fill="#d81e1e"/>'));
    expect(colorSearchScore(query, extractPalette(red))).toBeLessThan(15);
  });
});

describe('ranking many palettes with bounds', () => {
  it('returns the same best palettes and counts as scoring every palette exactly', async () => {
    const { prepareQuery, preparePalette, rankPalettes } = await import('./search-score');
    const random = (() => {
      let a = 7;
      return () => ((a = (a * 1103515245 + 12345) % 2147483648) / 2147483648);
    })();
    const palettes = Array.from({ length: 400 }, () => {
      const n = 1 + Math.floor(random() * 8);
      return Array.from({ length: n }, () => ({
        rgb: [0, 0, 0].map(() => Math.floor(random() * 256)) as unknown as Rgb,
        weight: 1 + random() * 50,
      }));
    });
    const query = [{ rgb: rgb('1f4e9c') as Rgb | 'wildcard', weight: 60 }, { rgb: rgb('f2d14a'), weight: 30 }, { rgb: 'wildcard' as const, weight: 10 }];
    const exact = palettes.map((p, index) => ({ index, score: colorSearchScore(query, p) })).sort((a, b) => b.score - a.score || a.index - b.index);
    const prepared = palettes.map(preparePalette);
    for (const minScore of [0, 20, 45]) {
      const ranked = rankPalettes(prepareQuery(query), prepared, { minScore, take: 10 });
      const expected = exact.filter((e) => e.score >= minScore);
      expect(ranked.matched).toBe(expected.length);
      expect(ranked.hits.map((h) => h.index)).toEqual(expected.slice(0, 10).map((e) => e.index));
      expect(ranked.hits[0].score).toBeCloseTo(expected[0].score, 9);
    }
    const all = rankPalettes(prepareQuery(query), prepared, { minScore: 30, take: 0 });
    expect(all.hits.map((h) => h.index)).toEqual(exact.filter((e) => e.score >= 30).map((e) => e.index));
  });
});
