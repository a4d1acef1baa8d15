import { describe, expect, it } from 'vitest';
import { deltaE, oklabToRgb, rgbToOklab } from './oklab';

describe('OKLab and ΔE_OK', () => {
  it('puts white and black 100 apart and equal colors 0 apart', () => {
    expect(deltaE([255, 255, 255], [0, 0, 0])).toBeCloseTo(100, 0);
    expect(deltaE([31, 78, 156], [31, 78, 156])).toBe(0);
  });

  it('converts sRGB to OKLab and back without changing the color', () => {
    for (let r = 0; r < 256; r += 17) {
      for (let g = 0; g < 256; g += 51) {
        for (let b = 0; b < 256; b += 85) expect(oklabToRgb(rgbToOklab([r, g, b]))).toEqual([r, g, b]);
      }
    }
  });

  it('judges a step in dark blue larger than the same step in light yellow, as eyes do', () => {
    expect(deltaE([0, 0, 60], [0, 0, 80])).toBeGreaterThan(deltaE([255, 255, 200], [255, 255, 220]));
  });
});
