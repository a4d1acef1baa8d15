import { describe, expect, it } from 'vitest';
import { applyHomography } from './geometry';
import { seededRandom } from './random';
import { roundsFor, similarityRansac } from './similarity-ransac';

/** Pairs of which the first `inliers` follow `truth` (with ±noise px), the rest land anywhere in 600×400. */
function pairs(truth: number[], inliers: number, outliers: number, noise: number, seed = 1) {
  const rnd = seededRandom(seed);
  const n = inliers + outliers;
  const from = new Float64Array(2 * n);
  const to = new Float64Array(2 * n);
  for (let k = 0; k < n; k++) {
    from[2 * k] = rnd() * 600;
    from[2 * k + 1] = rnd() * 400;
    const [x, y] = k < inliers ? applyHomography(truth, from[2 * k], from[2 * k + 1]) : [rnd() * 600, rnd() * 400];
    to[2 * k] = x + (rnd() - 0.5) * 2 * noise;
    to[2 * k + 1] = y + (rnd() - 0.5) * 2 * noise;
  }
  return { from, to };
}

describe('similarityRansac', () => {
  // 0.7x, turned by 15°, shifted.
  const angle = (15 * Math.PI) / 180;
  const truth = [0.7 * Math.cos(angle), -0.7 * Math.sin(angle), 40, 0.7 * Math.sin(angle), 0.7 * Math.cos(angle), -25, 0, 0, 1];

  it('recovers a similarity among 90 % outliers and names its inliers', () => {
    const { from, to } = pairs(truth, 12, 108, 1);
    const fit = similarityRansac(from, to, 4, 1000, 0.995)!;
    expect(fit).not.toBeNull();
    fit.transform.forEach((v, i) => expect(v).toBeCloseTo(truth[i], i === 2 || i === 5 ? 0 : 2));
    expect(fit.inliers.filter((k) => k < 12)).toHaveLength(12);
    // Random outliers can fall within 4 px of the true mapping; only a few.
    expect(fit.inliers.length).toBeLessThan(16);
  });

  it('gives the same fit for the same pairs', () => {
    const { from, to } = pairs(truth, 20, 60, 1.5, 3);
    expect(similarityRansac(from, to, 4, 1000, 0.995)).toEqual(similarityRansac(from, to, 4, 1000, 0.995));
  });

  it('finds no large consensus among unrelated points', () => {
    const { from, to } = pairs(truth, 0, 80, 0, 5);
    const fit = similarityRansac(from, to, 4, 1000, 0.995);
    expect(fit === null || fit.inliers.length < 6).toBe(true);
  });

  it('needs two pairs that span some distance', () => {
    expect(similarityRansac(new Float64Array([1, 1]), new Float64Array([2, 2]), 4, 100, 0.995)).toBeNull();
    expect(similarityRansac(new Float64Array([1, 1, 2, 1]), new Float64Array([5, 5, 6, 5]), 4, 100, 0.995)).toBeNull();
  });

  it('plans rounds for a two-pair sample', () => {
    expect(roundsFor(0.1, 0.995)).toBe(528);
    expect(roundsFor(1, 0.995)).toBe(1);
    expect(roundsFor(0, 0.995)).toBe(Infinity);
  });
});
