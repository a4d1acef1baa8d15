import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { chromaDifference, confirmDense, confirmDenseFit, DENSE_MAX_CHROMA_DIFFERENCE, overlapsForDense } from './dense-confirm';
import { extractFeatures } from './features';
import { repeatedPatternFit, TargetGrid } from './repeated-pattern';
import { seededRandom } from './random';
import { toGray } from './testing/synthetic-images';
import * as edit from './testing/edits';
import type { Features, MatchResult, RgbImage } from './types';
import { DEFAULT_MIN_SCORE, verifyMatch } from './verify';

/** A wall of identical square tiles with grout and one motif per tile: every keypoint has dozens of exact twins. */
async function tiles(size: number, motif: 'ring' | 'diamond', width: number, height: number): Promise<RgbImage> {
  const parts = [`<rect width="${width}" height="${height}" fill="#e8e4dc"/>`];
  const s = size - 3;
  for (let y = 0; y < height; y += size) {
    for (let x = 0; x < width; x += size) {
      parts.push(`<rect x="${x}" y="${y}" width="${s}" height="${s}" fill="#3b7fa8"/>`);
      if (motif === 'ring') parts.push(`<circle cx="${x + s / 2}" cy="${y + s / 2}" r="${s * 0.3}" fill="none" stroke="#f2c14e" stroke-width="${s * 0.07}"/>`);
      else parts.push(`<polygon points="${x + s / 2},${y + s * 0.15} ${x + s * 0.85},${y + s / 2} ${x + s / 2},${y + s * 0.85} ${x + s * 0.15},${y + s / 2}" fill="#f2c14e"/>`);
    }
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${parts.join('')}</svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

async function evidence(rgb: RgbImage) {
  return { rgb, features: await extractFeatures(toGray(rgb)) };
}

const rotationOf = (transform: number[]) => (Math.atan2(transform[3], transform[0]) * 180) / Math.PI;
const scaleOf = (transform: number[]) => Math.hypot(transform[0], transform[3]);

describe('repeated patterns', () => {
  it('finds a 25 % crop of a tiled wall that the ratio-tested check refuses, by guided growth and the pixel check', async () => {
    const wall = await tiles(30, 'ring', 900, 600);
    const crop = await edit.jpeg(await edit.crop(wall, edit.cropBox(wall, 0.25, 0.3, 0.6)), 60);
    const [target, query] = await Promise.all([evidence(wall), evidence(crop)]);
    expect(await verifyMatch(query.features, target.features)).toBeNull();
    const match = await confirmDense(query, target);
    expect(match).not.toBeNull();
    expect(match!.score).toBeLessThan(DEFAULT_MIN_SCORE);
    expect(match!.query_overlap_percent).toBeGreaterThan(90);
    expect(match!.target_overlap_percent).toBeGreaterThan(20);
    expect(match!.target_overlap_percent).toBeLessThan(30);
    expect(scaleOf(match!.transform)).toBeCloseTo(1, 1);
  });

  it('confirms no crop of another tiled wall (other tile size and motif, same colors and grout)', async () => {
    const [a, b] = await Promise.all([tiles(30, 'ring', 900, 600), tiles(38, 'diamond', 900, 600)]);
    for (const [x, y] of [[0.3, 0.6], [0.7, 0.2]]) {
      const crop = await evidence(await edit.crop(b, edit.cropBox(b, 0.25, x, y)));
      expect(await confirmDense(crop, await evidence(a))).toBeNull();
    }
  });

  it('recovers the similarity from many-to-many pairs of a lattice of identical motifs', () => {
    // Target: a 12x10 lattice of identical keypoints 20 px apart; query: the same lattice turned 30°, scaled 1.5x and
    // moved. Every pivot pairs a query keypoint with an arbitrary copy (all descriptors equal): only geometry decides.
    const turn = (30 * Math.PI) / 180;
    const [a, b, tx, ty] = [1.5 * Math.cos(turn), 1.5 * Math.sin(turn), 220, 40];
    const n = 120;
    const lattice = (map: (x: number, y: number) => [number, number], size: number, angle: number): Features => {
      const xy = new Float32Array(2 * n);
      const meta = new Float32Array(4 * n);
      for (let k = 0; k < n; k++) {
        xy.set(map(20 + 20 * (k % 12), 20 + 20 * Math.floor(k / 12)), 2 * k);
        meta.set([size, angle, 1, 0], 4 * k);
      }
      return { width: 600, height: 600, count: n, xy, meta, descriptors: new Uint8Array(32 * n) };
    };
    const target = lattice((x, y) => [x, y], 31, 10);
    const query = lattice((x, y) => [a * x - b * y + tx, b * x + a * y + ty], 31 * 1.5, 40);
    const pivots: Array<[number, number]> = [];
    for (let q = 0; q < n; q += 3) pivots.push([q, (q * 7) % n]);
    const fit = repeatedPatternFit(query, target, pivots, 2);
    expect(fit).not.toBeNull();
    // A lattice shift of the right similarity fits as well: rotation and scale must be exact, inliers one-to-one.
    expect(rotationOf(fit!.transform)).toBeCloseTo(30, 1);
    expect(scaleOf(fit!.transform)).toBeCloseTo(1.5, 2);
    expect(new Set(fit!.inliers.map(([q]) => q)).size).toBe(fit!.inliers.length);
    expect(new Set(fit!.inliers.map(([, t]) => t)).size).toBe(fit!.inliers.length);
    expect(fit!.inliers.length).toBeGreaterThan(40);
  });

  it('answers every guided lookup the same once query keypoints without an alike target are skipped', async () => {
    const wall = await tiles(30, 'ring', 900, 600);
    const crop = await edit.jpeg(await edit.crop(wall, edit.cropBox(wall, 0.25, 0.3, 0.6)), 60);
    const other = await tiles(44, 'diamond', 700, 500);
    const [target, query, unrelated] = await Promise.all([evidence(wall), evidence(crop), evidence(other)]);
    const rnd = seededRandom(38);
    for (const [q, t] of [[query, target], [unrelated, target]]) {
      const lookups: Array<[number, number, number, number]> = [];
      for (let i = 0; i < q.features.count; i++) {
        // The whole frame (-1 exactly when no target keypoint is alike) and a disc of a growth ring's size.
        lookups.push([t.features.width / 2, t.features.height / 2, 2000, i]);
        lookups.push([rnd() * t.features.width, rnd() * t.features.height, 4 + rnd() * 100, i]);
      }
      const grid = new TargetGrid(q.features, t.features);
      const before = lookups.map(([x, y, radius, i]) => grid.nearestMatch(x, y, radius, i));
      grid.skipUnalike();
      const after = lookups.map(([x, y, radius, i]) => grid.nearestMatch(x, y, radius, i));
      expect(after).toEqual(before);
      // Both kinds are there: keypoints with an alike target somewhere, and keypoints skipped.
      const anywhere = before.filter((_, k) => k % 2 === 0);
      expect(anywhere.some((m) => m >= 0)).toBe(true);
      expect(anywhere.some((m) => m < 0)).toBe(true);
    }
  });
});

describe('which weak fits get the dense check', () => {
  const fit = (query: number, target: number) => ({ query_overlap_percent: query, target_overlap_percent: target }) as MatchResult;
  it('takes whole copies and crops down to a fifth of the collection image, not small patches', () => {
    expect(overlapsForDense(fit(60, 60))).toBe(true);
    expect(overlapsForDense(fit(100, 25))).toBe(true);
    expect(overlapsForDense(fit(60, 25))).toBe(false);
    expect(overlapsForDense(fit(100, 10))).toBe(false);
  });
});

describe('colors of a dense check', () => {
  it('refuses the alignment of a tiled wall crop onto the same wall in another colorway', async () => {
    const wall = await tiles(30, 'ring', 900, 600);
    // Red and blue swapped: same layout, other colors.
    const recolored: RgbImage = { ...wall, data: wall.data.map((v, i) => (i % 3 === 0 ? wall.data[i + 2] : i % 3 === 2 ? wall.data[i - 2] : v)) };
    const crop = await evidence(await edit.jpeg(await edit.crop(wall, edit.cropBox(wall, 0.25, 0.3, 0.6)), 60));
    const match = await confirmDense(crop, await evidence(wall));
    expect(match).not.toBeNull();
    expect(chromaDifference(crop.rgb, wall, match!)).toBeLessThan(DENSE_MAX_CHROMA_DIFFERENCE);
    expect(chromaDifference(crop.rgb, recolored, match!)).toBeGreaterThan(DENSE_MAX_CHROMA_DIFFERENCE);
    expect(await confirmDenseFit(crop.rgb, recolored, match!)).toBeNull();
  });

  it('takes a copy whose contrast or brightness changed as the same colors, and a recolored one still not', async () => {
    // A saturated purple-to-orange wallpaper: contrast +40 % moved its chromaticities by 0.25 before the change is undone.
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="300" height="200"><defs><linearGradient id="g" x1="0" y1="1" x2="1" y2="0">
      <stop offset="0" stop-color="#5e2160"/><stop offset="1" stop-color="#d9552b"/></linearGradient></defs><rect width="300" height="200" fill="url(#g)"/></svg>`;
    const { data, info } = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const wallpaper: RgbImage = { data: new Uint8Array(data), width: info.width, height: info.height };
    // One gain and offset for every channel, as a contrast edit applies them (clipped like 8-bit pixels).
    const linear = (img: RgbImage, gain: number, offset: number): RgbImage => ({ ...img, data: img.data.map((v) => Math.min(255, Math.max(0, Math.round(gain * v + offset)))) });
    const swapped: RgbImage = { ...wallpaper, data: wallpaper.data.map((v, i) => (i % 3 === 0 ? wallpaper.data[i + 2] : i % 3 === 2 ? wallpaper.data[i - 2] : v)) };
    const identity = { transform: [1, 0, 0, 0, 1, 0, 0, 0, 1] } as MatchResult;
    for (const [gain, offset] of [[1.4, -51], [0.6, 51], [1, 40]]) {
      expect(chromaDifference(linear(wallpaper, gain, offset), wallpaper, identity)).toBeLessThan(0.02);
      expect(chromaDifference(linear(swapped, gain, offset), wallpaper, identity)).toBeGreaterThan(DENSE_MAX_CHROMA_DIFFERENCE);
    }
  });
});
