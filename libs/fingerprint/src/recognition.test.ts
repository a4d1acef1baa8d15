import { beforeAll, describe, expect, it } from 'vitest';
import { buildCollection, search, type Collection } from './testing/collection';
import { syntheticImage, toGray } from './testing/synthetic-images';
import * as edit from './testing/edits';
import { extractFeatures } from './features';
import { verifyMatch, DEFAULT_MIN_SCORE } from './verify';
import type { RgbImage } from './types';

const COLLECTION_SEEDS = Array.from({ length: 30 }, (_, i) => i + 1);
const UNRELATED_SEEDS = [501, 502, 503, 504];

let c: Collection;
beforeAll(async () => {
  c = await buildCollection(COLLECTION_SEEDS);
});

const img = (seed: number): RgbImage => c.images.get(seed)!;

describe('finds the right collection image first', () => {
  const cases: Array<[string, number, (i: RgbImage) => Promise<RgbImage>]> = [
    ['a 50% area crop', 3, (i) => edit.crop(i, edit.cropBox(i, 0.5, 0.2, 0.8))],
    ['a 0.3x downscale', 4, (i) => edit.scale(i, 0.3)],
    ['a 2x upscale', 5, (i) => edit.scale(i, 2)],
    ['a 90° rotation', 6, (i) => edit.rotate(i, 90)],
    ['a 180° rotation', 7, (i) => edit.rotate(i, 180)],
    ['a +15° rotation', 8, (i) => edit.rotate(i, 15)],
    ['a -15° rotation', 9, (i) => edit.rotate(i, -15)],
    ['a JPEG at quality 15', 10, (i) => edit.jpeg(i, 15)],
    ['a 30% brighter copy', 11, (i) => edit.brighten(i, 1.3)],
    ['a copy blurred with sigma 1.5', 12, (i) => edit.blur(i, 1.5)],
    ['a copy with a text overlay', 13, (i) => edit.textOverlay(i, 'SALE -50%')],
    ['a copy with a 40 px border', 14, (i) => edit.border(i, 40)],
    ['a mildly tilted (perspective) photo', 15, (i) => edit.tilt(i, 0.2)],
    ['a 0.5x, 15° rotated, JPEG q30 crop', 16, async (i) => edit.jpeg(await edit.rotate(await edit.scale(await edit.crop(i, edit.cropBox(i, 0.6)), 0.5), 15), 30)],
  ];
  for (const [what, seed, make] of cases) {
    it(`finds ${what}`, async () => {
      const results = await search(c, await make(img(seed)));
      expect(results[0]?.key).toBe(seed);
      expect(results[0].match.score).toBeGreaterThanOrEqual(DEFAULT_MIN_SCORE);
      expect(results[0].match.flipped).toBe(false);
    });
  }
});

describe('horizontal flips', () => {
  it('does not find a mirrored copy without flip checking', async () => {
    const results = await search(c, await edit.flip(img(17)));
    expect(results.find((r) => r.key === 17)).toBeUndefined();
  });

  it('finds a mirrored copy with flip checking and reports it flipped', async () => {
    const results = await search(c, await edit.flip(img(17)), { checkHorizontalFlip: true });
    expect(results[0]?.key).toBe(17);
    expect(results[0].match.flipped).toBe(true);
    // The transform includes the mirror: target x=0 lands on the query's right edge.
    const t = results[0].match.transform;
    expect((t[2] / t[8]) / img(17).width).toBeGreaterThan(0.95);
  });
});

describe('unrelated images', () => {
  it('are rejected by geometric verification against every collection image', async () => {
    for (const seed of UNRELATED_SEEDS) {
      const query = await extractFeatures(toGray(await syntheticImage(seed)), { includeMirror: true });
      for (const key of COLLECTION_SEEDS) {
        const m = await verifyMatch(query, c.features.get(key)!, { checkHorizontalFlip: true });
        if (m) expect(m.score).toBeLessThan(DEFAULT_MIN_SCORE);
      }
    }
  });
});

describe('score', () => {
  async function scoreOf(seed: number, q: RgbImage): Promise<number> {
    const m = await verifyMatch(await extractFeatures(toGray(q)), c.features.get(seed)!);
    return m?.score ?? 0;
  }

  it('drops for a smaller crop (25% area) compared with a larger one (75%)', async () => {
    const i = img(20);
    const small = await scoreOf(20, await edit.crop(i, edit.cropBox(i, 0.25)));
    const large = await scoreOf(20, await edit.crop(i, edit.cropBox(i, 0.75)));
    expect(small).toBeGreaterThanOrEqual(DEFAULT_MIN_SCORE);
    expect(small).toBeLessThan(large);
  });

  it('drops for JPEG quality 10 compared with quality 60', async () => {
    const i = img(21);
    const hard = await scoreOf(21, await edit.jpeg(i, 10));
    const mild = await scoreOf(21, await edit.jpeg(i, 60));
    expect(hard).toBeGreaterThanOrEqual(DEFAULT_MIN_SCORE);
    expect(hard).toBeLessThanOrEqual(mild);
  });
});

describe('match rectangles', () => {
  it('puts target_match_rect within 5 points of the true crop box', async () => {
    for (const [seed, share, sx, sy] of [
      [22, 0.5, 0.1, 0.9],
      [23, 0.3, 0.8, 0.2],
      [24, 0.7, 0.5, 0.5],
    ]) {
      const i = img(seed);
      const box = edit.cropBox(i, share, sx, sy);
      const m = (await verifyMatch(await extractFeatures(toGray(await edit.crop(i, box))), c.features.get(seed)!))!;
      expect(m).not.toBeNull();
      const r = m.target_match_rect;
      expect(Math.abs(r.left - (100 * box.left) / i.width)).toBeLessThan(5);
      expect(Math.abs(r.right - (100 * (box.left + box.width)) / i.width)).toBeLessThan(5);
      expect(Math.abs(r.top - (100 * box.top) / i.height)).toBeLessThan(5);
      expect(Math.abs(r.bottom - (100 * (box.top + box.height)) / i.height)).toBeLessThan(5);
      // The whole crop lies on the target: the query is fully covered, and the target by about `share`.
      expect(m.query_overlap_percent).toBeGreaterThan(95);
      expect(m.match_percent).toBeGreaterThan(95);
      expect(Math.abs(m.target_overlap_percent - 100 * share)).toBeLessThan(5);
    }
  });

  it('reports a small match_percent when the target is a small part of the query', async () => {
    // The target shrunk to a 200 px inset inside an unrelated 800x600 scene.
    const scene = await syntheticImage(601);
    const inset = await edit.scale(img(25), 0.35);
    const composed = await edit.pasteInto(scene, inset, 300, 250);
    const m = (await verifyMatch(await extractFeatures(toGray(composed)), c.features.get(25)!))!;
    expect(m).not.toBeNull();
    // The inset is 12 % of the scene's area but, being a dense downscaled image, holds ~30 % of its keypoints.
    expect(m.match_percent).toBeLessThan(50);
    expect(m.query_overlap_percent).toBeLessThan(20);
    expect(m.query_match_rect.left).toBeGreaterThan(100 * (300 - 20) / 800);
    expect(m.query_match_rect.left).toBeLessThan(100 * (300 + 20) / 800);
  });
});
