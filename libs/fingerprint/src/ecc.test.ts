import { describe, expect, it } from 'vitest';
import { eccAffine, type AffineMap } from './ecc';
import { loadOpenCv } from './opencv';
import { rgbToGray } from './rgb';
import * as edit from './testing/edits';
import { glazedTiles, syntheticImage } from './testing/synthetic-images';
import type { GrayImage } from './types';

/** `gray` resampled at map(x, y) (bilinear), the frame kept: what the input of an alignment looks like. */
function resampled(gray: GrayImage, map: AffineMap): GrayImage {
  const { width: w, height: h, data } = gray;
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const u = Math.min(w - 1.001, Math.max(0, map[0] * x + map[1] * y + map[2]));
      const v = Math.min(h - 1.001, Math.max(0, map[3] * x + map[4] * y + map[5]));
      const [x0, y0] = [Math.floor(u), Math.floor(v)];
      const [fx, fy] = [u - x0, v - y0];
      const k = y0 * w + x0;
      const top = data[k] + (data[k + 1] - data[k]) * fx;
      const bottom = data[k + w] + (data[k + w + 1] - data[k + w]) * fx;
      out[y * w + x] = Math.round(top + (bottom - top) * fy);
    }
  }
  return { data: out, width: w, height: h };
}

const EVERYWHERE = (g: GrayImage) => new Uint8Array(g.width * g.height).fill(255);
const SETTLE = { iterations: 5, epsilon: 1e-4 };

describe('affine alignment by the enhanced correlation coefficient', () => {
  it('finds the shift and scale between a scene and its resampled copy to a tenth of a pixel', async () => {
    const scene = rgbToGray(await edit.scale(await syntheticImage(7), 0.45));
    const [cx, cy] = [scene.width / 2, scene.height / 2];
    // The copy's pixel (x, y) shows the scene at 1.5 % larger scale about the centre, 2.5 px right and 1.5 px up.
    const truth: AffineMap = [1.015, 0, cx - 1.015 * cx + 2.5, 0, 1.015, cy - 1.015 * cy - 1.5];
    const map = eccAffine(resampled(scene, [1, 0, 0, 0, 1, 0]), resampled(scene, truth), EVERYWHERE(scene), SETTLE);
    expect(map).not.toBeNull();
    // Where the template's corners land in the input, against where they should.
    for (const [x, y] of [[20, 20], [scene.width - 20, scene.height - 20], [scene.width - 20, 20]]) {
      const u = map![0] * x + map![1] * y + map![2];
      const v = map![3] * x + map![4] * y + map![5];
      const [tu, tv] = [(x - truth[2]) / truth[0], (y - truth[5]) / truth[4]];
      expect(Math.hypot(u - tu, v - tv)).toBeLessThan(0.1);
    }
  });

  it('gives up on a tile wall against another tile wall (null: the correlation would be minimised)', async () => {
    const wall = rgbToGray(await edit.scale(await glazedTiles(1, 40), 0.32));
    const other = rgbToGray(await edit.scale(await glazedTiles(5, 23), 0.32));
    expect(eccAffine(wall, other, EVERYWHERE(wall), SETTLE)).toBeNull();
  });

  it('matches OpenCV findTransformECC where that converges', async () => {
    const { cv } = await loadOpenCv();
    const scene = rgbToGray(await edit.scale(await syntheticImage(3), 0.45));
    const [cx, cy] = [scene.width / 2, scene.height / 2];
    const input = resampled(scene, [0.99, 0, cx - 0.99 * cx - 1, 0, 0.99, cy - 0.99 * cy + 2]);
    const mask = EVERYWHERE(scene);
    const mats = [cv.matFromArray(scene.height, scene.width, cv.CV_8UC1, scene.data), cv.matFromArray(scene.height, scene.width, cv.CV_8UC1, input.data), cv.matFromArray(scene.height, scene.width, cv.CV_8UC1, mask), cv.Mat.eye(2, 3, cv.CV_32F)];
    try {
      cv.findTransformECC(mats[0], mats[1], mats[3], cv.MOTION_AFFINE, new cv.TermCriteria(cv.TermCriteria_COUNT + cv.TermCriteria_EPS, 5, 1e-4), mats[2], 5);
      const theirs = Array.from(mats[3].data32F as Float32Array);
      const ours = eccAffine(scene, input, mask, SETTLE)!;
      ours.forEach((value, i) => expect(value).toBeCloseTo(theirs[i], i % 3 === 2 ? 1 : 3));
    } finally {
      mats.forEach((m) => m.delete());
    }
  });
});
