import { describe, expect, it } from 'vitest';
import { classifyColor } from './classify';
import { parseColor } from './color-format';
import { combinePalettes } from './combine';
import type { PaletteEntry } from './types';

const rgb = (hex: string) => parseColor(hex).rgb;
const entry = (hex: string, weight: number): PaletteEntry => ({ rgb: rgb(hex), weight, class: classifyColor(rgb(hex)) });
const sumHundredths = (p: PaletteEntry[]) => p.reduce((s, e) => s + Math.round(e.weight * 100), 0);

describe('combining palettes', () => {
  it('counts each image equally and merges the same color across images', () => {
    const a = [entry('1f4e9c', 80), entry('ffffff', 20)];
    const b = [entry('2052a0', 50), entry('d81e1e', 50)]; // #2052a0 is ΔE 2 from #1f4e9c
    const combined = combinePalettes([a, b]);
    expect(combined.map((e) => e.class)).toEqual(['red', 'blue', 'white']);
    expect(combined.map((e) => e.weight)).toEqual([25, 65, 10]);
    expect(sumHundredths(combined)).toBe(10000);
  });

  it("keeps two brand blues of different images apart, each at its own color, and never reports their average", () => {
    // ΔE_OK 5 apart: a designer's two shades. The old cross-image merge (ΔE 8) returned one blue found in no image.
    const a = [entry('1f4e9c', 100)];
    const b = [entry('2a5cb0', 100)];
    const combined = combinePalettes([a, b]);
    expect(combined).toHaveLength(2);
    expect(combined.map((e) => e.rgb).sort()).toEqual([rgb('1f4e9c'), rgb('2a5cb0')].sort());
  });

  it('reports a merged color at its heaviest member, a color of an image', () => {
    const combined = combinePalettes([[entry('1f4e9c', 40), entry('ffffff', 60)], [entry('2052a0', 100)]]);
    expect(combined).toHaveLength(2);
    const blue = combined.find((e) => e.class !== 'white')!;
    expect(blue.rgb).toEqual(rgb('2052a0'));
    expect(blue.weight).toBe(70);
  });

  it('keeps the heaviest colors under a limit, renormalised to 100 and ranked by hue', () => {
    const a = [entry('111111', 10), entry('d81e1e', 30), entry('1f4e9c', 40), entry('ffffff', 20)];
    const limited = combinePalettes([a], 2);
    expect(limited.map((e) => e.class)).toEqual(['red', 'blue']);
    expect(limited.map((e) => e.weight)).toEqual([42.86, 57.14]);
    expect(combinePalettes([a], 0)).toHaveLength(4);
  });

  it('skips empty palettes instead of counting them as images', () => {
    expect(combinePalettes([[], [entry('1f4e9c', 100)]])).toEqual([entry('1f4e9c', 100)]);
    expect(combinePalettes([])).toEqual([]);
  });
});
