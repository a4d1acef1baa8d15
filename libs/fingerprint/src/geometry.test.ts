import { describe, expect, it } from 'vitest';
import { applyHomography, clipToRect, convexHull, insideConvex, invert, isConvex, multiply, signedArea, type Point } from './geometry';
import { isPlausibleTransform } from './transform-sanity';

describe('homography algebra', () => {
  it('inverts a perspective transform', () => {
    const h = [1.2, 0.1, 30, -0.05, 0.9, 12, 0.0002, 0.0001, 1];
    const back = multiply(invert(h), h).map((v, _, a) => v / a[8]);
    [1, 0, 0, 0, 1, 0, 0, 0, 1].forEach((v, i) => expect(back[i]).toBeCloseTo(v, 9));
    const [x, y] = applyHomography(h, 100, 50);
    const [x0, y0] = applyHomography(invert(h), x, y);
    expect(x0).toBeCloseTo(100, 6);
    expect(y0).toBeCloseTo(50, 6);
  });

  it('refuses to invert a singular matrix', () => {
    expect(() => invert([1, 2, 3, 2, 4, 6, 0, 0, 1])).toThrow(RangeError);
  });
});

describe('polygons', () => {
  const square: Point[] = [
    [-10, -10],
    [50, -10],
    [50, 50],
    [-10, 50],
  ];

  it('clips a polygon to the image rectangle', () => {
    const clipped = clipToRect(square, 40, 30);
    expect(Math.abs(signedArea(clipped))).toBeCloseTo(40 * 30);
    expect(clipToRect([[100, 100], [120, 100], [120, 120]], 40, 30)).toEqual([]);
  });

  it('tells folded outlines from convex ones', () => {
    expect(isConvex(square)).toBe(true);
    expect(isConvex([[0, 0], [10, 10], [10, 0], [0, 10]])).toBe(false);
  });

  it('finds the convex hull and tests points inside it', () => {
    const hull = convexHull([[0, 0], [10, 0], [5, 5], [10, 10], [0, 10], [3, 7]]);
    expect(hull).toHaveLength(4);
    expect(Math.abs(signedArea(hull))).toBeCloseTo(100);
    expect(insideConvex(hull, 5, 5)).toBe(true);
    expect(insideConvex(hull, 11, 5)).toBe(false);
  });
});

describe('transform plausibility', () => {
  it('accepts similarity transforms within the scale range', () => {
    const c = Math.cos(0.3);
    const s = Math.sin(0.3);
    expect(isPlausibleTransform([0.5 * c, -0.5 * s, 100, 0.5 * s, 0.5 * c, 20, 0, 0, 1], 800, 600)).toBe(true);
    expect(isPlausibleTransform([3, 0, 0, 0, 3, 0, 0, 0, 1], 800, 600)).toBe(true);
  });

  it('rejects mirrors, collapses, extreme scales and strong perspective', () => {
    expect(isPlausibleTransform([-1, 0, 800, 0, 1, 0, 0, 0, 1], 800, 600)).toBe(false);
    expect(isPlausibleTransform([1, 1, 0, 1, 1, 0, 0, 0, 1], 800, 600)).toBe(false);
    expect(isPlausibleTransform([0.1, 0, 0, 0, 0.1, 0, 0, 0, 1], 800, 600)).toBe(false);
    expect(isPlausibleTransform([1, 0, 0, 0, 1, 0, 0.001, 0, 1], 800, 600)).toBe(false);
    expect(isPlausibleTransform([1, 0, 0, 0, 1, 0, 0, 0, Number.NaN], 800, 600)).toBe(false);
  });
});
