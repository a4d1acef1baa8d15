import { describe, expect, it } from 'vitest';
import { seededRandom } from './random';
import { TopIndices } from './top-k';

/** The best k positive values' indices by a full sort: largest first, the earlier index of equal values. */
function bySorting(values: Float64Array, k: number): number[] {
  const positive = Array.from(values.keys()).filter((i) => values[i] > 0);
  return positive.sort((a, b) => values[b] - values[a] || a - b).slice(0, k);
}

/** Offers every positive value above the floor, in index order, as the vote's scan does. */
function offered(values: Float64Array, k: number): number[] {
  const top = new TopIndices(values, k);
  let floor = 0;
  for (let i = 0; i < values.length; i++) if (values[i] > 0 && values[i] > floor) floor = top.offer(i);
  return top.ranked();
}

describe('TopIndices', () => {
  it('keeps what a full sort ranks first, ties to the earlier index, for every k', () => {
    const rnd = seededRandom(7);
    // Few distinct values, so ties abound; a fifth are zero and never kept.
    const values = Float64Array.from({ length: 5000 }, () => (rnd() < 0.2 ? 0 : Math.floor(rnd() * 40) / 4));
    for (const k of [1, 2, 7, 200, 1999, 4000, 6000]) expect(offered(values, k)).toEqual(bySorting(values, k));
  });

  it('reports a floor of 0 until k are kept, then the worst kept', () => {
    const values = Float64Array.from([5, 3, 9, 1, 7]);
    const top = new TopIndices(values, 3);
    expect(top.offer(0)).toBe(0);
    expect(top.offer(1)).toBe(0);
    expect(top.offer(2)).toBe(3);
    expect(top.offer(4)).toBe(5);
    expect(top.ranked()).toEqual([2, 4, 0]);
  });

  it('keeps nothing when k is 0', () => {
    const top = new TopIndices(Float64Array.from([1, 2]), 0);
    expect(top.offer(0)).toBe(0);
    expect(top.offer(1)).toBe(0);
    expect(top.ranked()).toEqual([]);
  });
});
