import { describe, expect, it } from 'vitest';
import { toPercentages } from './weights';

describe('percentage weights', () => {
  it('sums three equal thirds to exactly 100 with two decimals', () => {
    const w = toPercentages([1, 1, 1]);
    expect(w.slice().sort()).toEqual([33.33, 33.33, 33.34]);
    expect(w.reduce((s, x) => s + Math.round(x * 100), 0)).toBe(10000);
  });

  it('keeps tiny shares and gives the rounding remainder to the largest remainders', () => {
    expect(toPercentages([1, 99999])).toEqual([0, 100]);
    expect(toPercentages([2, 1, 1, 996])).toEqual([0.2, 0.1, 0.1, 99.6]);
  });

  it('gives zeros when there is no mass', () => {
    expect(toPercentages([0, 0])).toEqual([0, 0]);
    expect(toPercentages([])).toEqual([]);
  });
});
