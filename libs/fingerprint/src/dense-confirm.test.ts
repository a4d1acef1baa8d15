import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { confirmDense } from './dense-confirm';
import { extractFeatures } from './features';
import { seededRandom } from './random';
import * as edit from './testing/edits';
import { toGray } from './testing/synthetic-images';
import type { RgbImage } from './types';
import { DEFAULT_MIN_SCORE, verifyMatch } from './verify';

/** A smooth wallpaper: soft gradient ribbons with hardly a corner, the kind of image ORB finds few stable points on. */
async function smoothWallpaper(seed: number): Promise<RgbImage> {
  const rnd = seededRandom(seed);
  const hue = () => Math.floor(rnd() * 360);
  const ribbons = Array.from({ length: 10 }, (_, i) => {
    const y = 60 + rnd() * 480;
    const width = i % 2 ? 3 : 30 + rnd() * 50;
    return `<path d="M -50 ${y} C 250 ${y - 250 + rnd() * 500}, 550 ${y - 250 + rnd() * 500}, 850 ${y - 100 + rnd() * 200}" stroke="hsl(${hue()},70%,55%)" stroke-width="${width}" fill="none" stroke-linecap="round" opacity="0.8" filter="url(#soft${i % 2})"/>`;
  });
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="800" height="600">
    <defs><linearGradient id="bg" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="hsl(${hue()},60%,70%)"/><stop offset="1" stop-color="hsl(${hue()},60%,35%)"/></linearGradient>
    <filter id="soft0"><feGaussianBlur stdDeviation="5"/></filter><filter id="soft1"><feGaussianBlur stdDeviation="1"/></filter></defs>
    <rect width="800" height="600" fill="url(#bg)"/>${ribbons.join('')}</svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

async function evidence(rgb: RgbImage) {
  return { rgb, features: await extractFeatures(toGray(rgb), { includeMirror: true }) };
}

describe('dense confirmation of weak fits', () => {
  it('finds a heavily degraded copy of a smooth image that the feature check misses, scored below every feature match', async () => {
    const original = await smoothWallpaper(1);
    const copy = await evidence(await edit.jpeg(await edit.blur(original, 3), 10));
    const target = await evidence(original);
    expect(await verifyMatch(copy.features, target.features)).toBeNull();
    const match = await confirmDense(copy, target);
    expect(match).not.toBeNull();
    expect(match!.score).toBeGreaterThan(0);
    expect(match!.score).toBeLessThan(DEFAULT_MIN_SCORE);
    expect(match!.query_overlap_percent).toBeGreaterThan(90);
  });

  it('confirms no unrelated smooth image', async () => {
    const query = await evidence(await edit.jpeg(await edit.blur(await smoothWallpaper(1), 3), 10));
    for (const seed of [2, 3, 4, 5]) expect(await confirmDense(query, await evidence(await smoothWallpaper(seed)), { checkHorizontalFlip: true })).toBeNull();
  });
});
