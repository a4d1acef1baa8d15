import { describe, expect, it } from 'vitest';
import { seededRandom } from './random';
import type { Features } from './types';
import { orientationConsistent, ransacRounds } from './verify';

function withAngles(angles: number[]): Features {
  const meta = new Float32Array(angles.length * 4);
  angles.forEach((a, i) => (meta[4 * i + 1] = a));
  return { width: 100, height: 100, count: angles.length, xy: new Float32Array(angles.length * 2), meta, descriptors: new Uint8Array(angles.length * 32) };
}

describe('orientation consistency', () => {
  const rnd = seededRandom(5);
  const targetAngles = Array.from({ length: 40 }, () => rnd() * 360);
  const pairs = targetAngles.map((_, i): [number, number] => [i, i]);

  it('keeps every pair of a rotated copy, across the 0°/360° seam, with orientation noise', () => {
    const rotated = targetAngles.map((a) => (a + 355 + (rnd() - 0.5) * 16) % 360);
    expect(orientationConsistent(withAngles(rotated), withAngles(targetAngles), pairs)).toHaveLength(40);
  });

  it('keeps few pairs of unrelated keypoints, and the consistent ones of a mixture', () => {
    const unrelated = targetAngles.map(() => rnd() * 360);
    expect(orientationConsistent(withAngles(unrelated), withAngles(targetAngles), pairs).length).toBeLessThan(12);
    const mixed = targetAngles.map((a, i) => (i < 20 ? (a + 90) % 360 : rnd() * 360));
    const kept = orientationConsistent(withAngles(mixed), withAngles(targetAngles), pairs);
    expect(kept.filter(([q]) => q < 20)).toHaveLength(20);
    expect(kept.length).toBeLessThan(28);
  });
});

describe('RANSAC rounds', () => {
  it('grow as the least inlier share falls, within the cap', () => {
    expect(ransacRounds(1)).toBe(1);
    expect(ransacRounds(0.9)).toBeLessThan(ransacRounds(0.5));
    expect(ransacRounds(0.5)).toBe(83);
    expect(ransacRounds(0.1)).toBe(500);
  });
});
