import { describe, expect, it } from 'vitest';
import { COLOR_CLASS_NAMES, classifyColor } from './classify';
import { parseColor } from './color-format';
import { COLOR_CLASSES } from './data/color-classes';
import { LABELLED_COLORS } from './data/labelled-colors';

const rgb = (hex: string) => parseColor(hex).rgb;

describe('color classes', () => {
  it('lists the 29 class names in their documented order', () => {
    expect(COLOR_CLASS_NAMES).toEqual(
      ('white, black, grey-light, grey, grey-dark, red-light, red, red-dark, pink-light, pink, pink-dark, ' +
        'orange-light, orange, orange-dark, green-light, green, green-dark, yellow-light, yellow, yellow-dark, ' +
        'blue-light, blue, blue-dark, violet-light, violet, violet-dark, brown-light, brown, brown-dark').split(', '),
    );
  });

  it('names at least 95 % of a labelled list of colors as a person would', () => {
    const misses = LABELLED_COLORS.filter(([hex, expected]) => !classifyColor(rgb(hex)).split(',').includes(expected));
    expect(LABELLED_COLORS.length).toBeGreaterThanOrEqual(100);
    expect(misses.length / LABELLED_COLORS.length).toBeLessThanOrEqual(0.05);
  });

  it('gives colors well inside a class a single name', () => {
    const single = LABELLED_COLORS.filter(([hex]) => !classifyColor(rgb(hex)).includes(','));
    expect(single.length / LABELLED_COLORS.length).toBeGreaterThan(0.9);
  });

  it('puts every prototype in its own class', () => {
    for (const c of COLOR_CLASSES) for (const hex of c.prototypes) expect(classifyColor(rgb(hex)).split(',')[0]).toBe(c.name);
  });

  it('gives both names to a color on the blue-violet boundary', () => {
    // Walk from pure blue to pure violet (#0000ff → #8000ff) and stop where the class first changes.
    let lo = 0;
    let hi = 128;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (classifyColor([mid, 0, 255]).startsWith('blue')) lo = mid;
      else hi = mid;
    }
    expect(classifyColor([0, 0, 255])).toBe('blue');
    expect(classifyColor([128, 0, 255])).toBe('violet');
    expect(classifyColor([lo, 0, 255])).toBe('blue,violet');
    expect(classifyColor([hi, 0, 255])).toBe('violet,blue');
  });

  it('only ever answers with names from the class list', () => {
    for (let r = 0; r < 256; r += 51) {
      for (let g = 0; g < 256; g += 51) {
        for (let b = 0; b < 256; b += 51) {
          for (const name of classifyColor([r, g, b]).split(',')) expect(COLOR_CLASS_NAMES).toContain(name);
        }
      }
    }
  });
});
