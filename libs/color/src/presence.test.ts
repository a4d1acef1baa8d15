import { describe, expect, it } from 'vitest';
import { classifyColor } from './classify';
import { parseColor } from './color-format';
import { extractPalette } from './palette';
import { FULL_AREA_MIN_PERCENT, PARTIAL_AREA_MIN_PERCENT, colorPresence } from './presence';
import { addNoise, renderSvg } from './test-support/render';
import { THREE_COLOR_SVG } from './test-support/scenes';
import type { PaletteEntry } from './types';

const rgb = (hex: string) => parseColor(hex).rgb;
const entry = (hex: string, weight: number): PaletteEntry => ({ rgb: rgb(hex), weight, class: classifyColor(rgb(hex)) });

describe('color presence', () => {
  it('counts the 60 % blue of a noisy image as full and partial, the 10 % white as partial only', async () => {
    const palette = extractPalette(addNoise(await renderSvg(THREE_COLOR_SVG), 16, 2));
    const blue = colorPresence(palette, rgb('1f4e9c'));
    expect(blue.percent).toBeCloseTo(60, 0);
    expect(blue).toMatchObject({ partial: true, full: true });
    expect(colorPresence(palette, rgb('ffffff'))).toMatchObject({ partial: true, full: false });
    expect(colorPresence(palette, rgb('d81e1e'))).toEqual({ percent: 0, partial: false, full: false });
  });

  it('adds up palette colors near the asked color and ignores distinct shades', () => {
    const palette = [entry('1f4e9c', 30), entry('2a5aa8', 25), entry('4169e1', 20), entry('ffffff', 25)];
    expect(colorPresence(palette, rgb('1f4e9c')).percent).toBe(55);
  });

  it('applies the partial and full floors at their boundaries', () => {
    const at = (w: number) => colorPresence([entry('1f4e9c', w), entry('ffffff', 100 - w)], rgb('1f4e9c'));
    expect(at(PARTIAL_AREA_MIN_PERCENT).partial).toBe(true);
    expect(at(PARTIAL_AREA_MIN_PERCENT - 0.01).partial).toBe(false);
    expect(at(FULL_AREA_MIN_PERCENT).full).toBe(true);
    expect(at(FULL_AREA_MIN_PERCENT - 0.01).full).toBe(false);
  });
});
