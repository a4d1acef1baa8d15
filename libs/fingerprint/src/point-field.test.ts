import { describe, expect, it } from 'vitest';
import { confirmPlacedCrop, UPRIGHT_CHECK } from './dense-confirm';
import { extractFeatures } from './features';
import { coincidingPoints, pointFieldsDiffer, type DetailPoint } from './point-field';
import { seededRandom } from './random';
import * as edit from './testing/edits';
import { starField, toGray } from './testing/synthetic-images';
import type { RgbImage } from './types';

async function evidence(rgb: RgbImage) {
  return { rgb, features: await extractFeatures(toGray(rgb)) };
}

function scatter(seed: number, count: number, width = 360, height = 240): DetailPoint[] {
  const rnd = seededRandom(seed);
  return Array.from({ length: count }, () => ({ x: rnd() * width, y: rnd() * height, strength: 30 + rnd() * 100 }));
}

const centre = { x: 180, y: 120 };

describe('point fields', () => {
  it('finds the points of a copy where they were, a few percent off in scale and a few pixels off in place', () => {
    const sky = scatter(1, 30);
    const copy = sky.map((p) => ({ ...p, x: centre.x + 1.06 * (p.x - centre.x) + 5, y: centre.y + 1.06 * (p.y - centre.y) - 4 }));
    expect(coincidingPoints(copy, sky, centre)).toBe(30);
    expect(pointFieldsDiffer(copy, sky, centre)).toBe(false);
  });

  it('tells another sky of as many points, and a part of an image that lacks the points', () => {
    expect(coincidingPoints(scatter(1, 30), scatter(2, 30), centre)).toBeLessThan(8);
    expect(pointFieldsDiffer(scatter(1, 30), scatter(2, 30), centre)).toBe(true);
    expect(pointFieldsDiffer(scatter(1, 30), scatter(1, 30).slice(0, 4), centre)).toBe(true);
  });

  it('does not judge a query with few points', () => {
    expect(pointFieldsDiffer(scatter(1, 7), scatter(2, 30), centre)).toBe(false);
  });
});

describe('placing a crop of a night sky', () => {
  // Skies of one galaxy and other stars agree in colour wherever the galaxy lies (the colour check confirmed them at
  // 32.9 before the stars were compared, as a held-out galaxy in another galaxy's image at 1,000,000 images).
  it('confirms a crop in its own sky and refuses it in another sky of the same galaxy, as it is and upright', async () => {
    const [sky, other] = [await starField(1), await starField(2)];
    const stored = await evidence(await edit.scale(sky, 0.5));
    const otherStored = await evidence(await edit.scale(other, 0.5));
    for (const share of [0.25, 0.5]) {
      const crop = await evidence(await edit.jpeg(await edit.crop(sky, edit.cropBox(sky, share, 0.5, 0.5)), 70));
      expect(await confirmPlacedCrop(crop, stored)).not.toBeNull();
      expect(await confirmPlacedCrop(crop, stored, UPRIGHT_CHECK)).not.toBeNull();
      expect(await confirmPlacedCrop(crop, otherStored)).toBeNull();
      expect(await confirmPlacedCrop(crop, otherStored, UPRIGHT_CHECK)).toBeNull();
    }
  });
});
