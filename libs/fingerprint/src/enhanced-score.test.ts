import { describe, expect, it } from 'vitest';
import { DENSE_CONFIRM_MIN } from './dense-confirm';
import { alignedByPixels, enhancedScore, settledAlignment } from './enhanced-score';
import { applyHomography, multiply, type Homography } from './geometry';
import * as edit from './testing/edits';
import { FINE_LATTICE, fineLatticeAndCopy, offInScale } from './testing/fine-lattice';
import { proposing } from './testing/fits';
import { glazedTiles } from './testing/synthetic-images';
import { loadOpenCv } from './opencv';

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

describe('a placement settled by its pixels', () => {
  it("moves a placement of a tile wall's crop, 1.5 % and 3 px off, to within a pixel of the crop's place", async () => {
    const wall = await glazedTiles(1, 40);
    const box = edit.cropBox(wall, 0.25, 0.1, 0.3);
    const crop = await edit.jpeg(await edit.crop(wall, box), 80);
    // Placements map the collection image's pixels (here at full size, decoded at half) onto the query's.
    const truth: Homography = [1, 0, -box.left, 0, 1, -box.top, 0, 0, 1];
    const [cx, cy] = [crop.width / 2, crop.height / 2];
    const off = multiply([1.015, 0, cx - 1.015 * cx + 3, 0, 1.015, cy - 1.015 * cy - 2, 0, 0, 1], truth);
    const stored = await edit.scale(wall, 0.5);
    const settled = await settledAlignment(crop, stored, off, 0.5);
    expect(settled).not.toBeNull();
    const corners = [[box.left, box.top], [box.left + box.width, box.top + box.height], [box.left + box.width, box.top]];
    const error = (t: Homography) =>
      Math.max(
        ...corners.map(([x, y]) => {
          const [[u, v], [tu, tv]] = [applyHomography(t, x, y), applyHomography(truth, x, y)];
          return Math.hypot(u - tu, v - tv);
        }),
      );
    expect(error(off)).toBeGreaterThan(5);
    expect(error(settled!)).toBeLessThan(1);
  });
});

describe('a settled alignment that does not settle', () => {
  it('leaves OpenCV memory as it was, however many pairs give up', async () => {
    const { cv } = await loadOpenCv();
    const wall = await edit.scale(await glazedTiles(1, 40), 0.32);
    const other = await edit.scale(await glazedTiles(5, 23), 0.32);
    const scale: Homography = [1, 0, 0, 0, 1, 0, 0, 0, 1];
    expect(await settledAlignment(wall, other, scale, 1)).toBeNull();
    const heap = cv.HEAP8.buffer.byteLength;
    // OpenCV's own ECC leaked about 9 MB of the wasm heap each time it gave up: 60 pairs grew the heap past 500 MB.
    for (let i = 0; i < 60; i++) await settledAlignment(wall, other, scale, 1);
    expect(cv.HEAP8.buffer.byteLength).toBe(heap);
  });
});
