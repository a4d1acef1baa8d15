import { describe, expect, it } from 'vitest';
import { DENSE_CONFIRM_MIN } from './dense-confirm';
import { alignedByPixels, enhancedScore } from './enhanced-score';
import { FINE_LATTICE, fineLatticeAndCopy, offInScale } from './testing/fine-lattice';
import { proposing } from './testing/fits';

describe('alignment by pixels', () => {
  it('settles the scale of a fit 1 % off on a fine lattice, where its own alignment hardly correlates', async () => {
    const { original, copy } = await fineLatticeAndCopy();
    const proposed = offInScale(copy, 1.01);
    expect(await enhancedScore(copy, original, proposed)).toBeLessThan(DENSE_CONFIRM_MIN);
    const aligned = await alignedByPixels(copy, original, proposed, 1, DENSE_CONFIRM_MIN);
    expect(aligned.score).toBeGreaterThanOrEqual(DENSE_CONFIRM_MIN);
    expect(aligned.transform[0] / FINE_LATTICE.copyScale).toBeCloseTo(1, 3);
    expect(aligned.score).toBe(await enhancedScore(copy, original, { ...proposed, transform: aligned.transform }));
  });

  it('keeps as they are a fit that correlates enough, and one whose pixels hardly agree', async () => {
    const { original, copy } = await fineLatticeAndCopy();
    const right = proposing([FINE_LATTICE.copyScale, 0, 0, 0, FINE_LATTICE.copyScale, 0, 0, 0, 1]);
    expect(await alignedByPixels(copy, original, right, 1, DENSE_CONFIRM_MIN)).toEqual({ transform: right.transform, score: await enhancedScore(copy, original, right) });
    // 3 % off, the copy's edges are a tile away: its gradients do not correlate, and no scale is tried.
    const far = offInScale(copy, 1.03);
    expect(await alignedByPixels(copy, original, far, 1, DENSE_CONFIRM_MIN)).toEqual({ transform: far.transform, score: await enhancedScore(copy, original, far) });
    expect(await enhancedScore(copy, original, offInScale(copy, 1.02))).toBeLessThan(DENSE_CONFIRM_MIN);
  });
});
