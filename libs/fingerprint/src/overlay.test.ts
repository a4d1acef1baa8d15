import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { extractFeatures } from './features';
import { verifyMatch } from './verify';
import { enhancedScore } from './enhanced-score';
import { renderOverlay } from './overlay';
import { syntheticImage, toGray } from './testing/synthetic-images';
import * as edit from './testing/edits';
import type { MatchResult, RgbImage } from './types';

let target: RgbImage;
let query: RgbImage;
let match: MatchResult;
beforeAll(async () => {
  target = await syntheticImage(401);
  // A rotated, mirrored, downscaled crop: everything the overlay has to undo.
  query = await edit.flip(await edit.rotate(await edit.scale(await edit.crop(target, edit.cropBox(target, 0.5, 0.9, 0.2)), 0.7), 12));
  const qf = await extractFeatures(toGray(query), { includeMirror: true });
  match = (await verifyMatch(qf, await extractFeatures(toGray(target)), { checkHorizontalFlip: true }))!;
});

describe('overlay', () => {
  it('is a JPEG twice the target width and the target height', async () => {
    expect(match.flipped).toBe(true);
    const jpg = await renderOverlay(query, target, match);
    const meta = await sharp(jpg).metadata();
    expect(meta.format).toBe('jpeg');
    expect(meta.width).toBe(2 * target.width);
    expect(meta.height).toBe(target.height);
  });

  it('shows the query aligned with the target on the right half', async () => {
    const jpg = await renderOverlay(query, target, match);
    const { data } = await sharp(jpg).greyscale().raw().toBuffer({ resolveWithObject: true });
    const w = target.width;
    const grey = toGray(target).data;
    // Inside the matched region, away from the outline, right-half pixels should equal the target's.
    const r = match.target_match_rect;
    let diff = 0;
    let n = 0;
    for (let y = Math.ceil((r.top / 100) * target.height) + 20; y < (r.bottom / 100) * target.height - 20; y += 3) {
      for (let x = Math.ceil((r.left / 100) * w) + 20; x < (r.right / 100) * w - 20; x += 3) {
        diff += Math.abs(data[y * 2 * w + w + x] - grey[y * w + x]);
        n++;
      }
    }
    expect(n).toBeGreaterThan(1000);
    expect(diff / n).toBeLessThan(20);
  });
});

describe('enhanced score', () => {
  it('is high for the aligned true match and low for a different image under the same transform', async () => {
    const good = await enhancedScore(query, target, match);
    const bad = await enhancedScore(query, await syntheticImage(402), match);
    expect(good).toBeGreaterThan(70);
    expect(bad).toBeLessThan(30);
  });

  it('drops when the query is degraded', async () => {
    const degraded = await edit.blur(await edit.jpeg(query, 10), 2);
    const clean = await enhancedScore(query, target, match);
    expect(await enhancedScore(degraded, target, match)).toBeLessThan(clean);
  });
});
