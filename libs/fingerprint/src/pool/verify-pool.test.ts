import { afterAll, describe, expect, it } from 'vitest';
import { extractFeatures } from '../features';
import { serializeFeatures } from '../features-codec';
import { verifyMatch } from '../verify';
import { VerifyPool } from './verify-pool';
import { cropBox, crop } from '../testing/edits';
import { syntheticImage, toGray } from '../testing/synthetic-images';

describe('verification pool', () => {
  const pool = new VerifyPool(2);
  afterAll(() => pool.close());

  it('gives the same verdicts as verifying in this thread, in the targets order', async () => {
    const targets = await Promise.all([1, 2, 3].map((seed) => syntheticImage(seed)));
    const query = await extractFeatures(toGray(await crop(targets[1], cropBox(targets[1], 0.5))));
    const targetFeatures = await Promise.all(targets.map((t) => extractFeatures(toGray(t))));
    const pooled = await pool.verifyAll(query, targetFeatures.map(serializeFeatures));
    const local = await Promise.all(targetFeatures.map((t) => verifyMatch(query, t)));
    expect(pooled.map((r) => r !== null)).toEqual([false, true, false]);
    expect(pooled[1]!.inliers).toBe(local[1]!.inliers);
    expect(pooled[1]!.target_match_rect).toEqual(local[1]!.target_match_rect);
  }, 60_000);

  it('fails pending work when a thread dies, and keeps serving with a fresh one', async () => {
    const fragile = new VerifyPool(1);
    try {
      const features = await extractFeatures(toGray(await syntheticImage(7)));
      const pending = fragile.verifyAll(features, [serializeFeatures(features)]);
      await (fragile as unknown as { workers: Array<{ terminate(): Promise<number> }> }).workers[0].terminate();
      await expect(pending).rejects.toThrow(/verification thread stopped/);
      const [again] = await fragile.verifyAll(features, [serializeFeatures(features)]);
      expect(again?.inliers).toBeGreaterThan(100);
    } finally {
      await fragile.close();
    }
  }, 60_000);

  it('refuses work once closed', async () => {
    const spare = new VerifyPool(1);
    await spare.close();
    const features = await extractFeatures(toGray(await syntheticImage(9)));
    await expect(spare.verifyAll(features, [serializeFeatures(features)])).rejects.toThrow(/closed/);
  }, 60_000);
});
