import { describe, expect, it } from 'vitest';
import { intersectionOverUnion } from './box';
import { detectLabel } from './label-detect';
import { renderBottleScene, renderLabel } from './testing/label-fixtures';

describe('label detection', () => {
  it.each([7, 11, 42])('finds the label on a dark bottle over a cluttered noisy background (seed %i)', async (seed) => {
    const { image, labelBox } = await renderBottleScene(seed);
    const box = detectLabel(image);
    expect(box).not.toBeNull();
    expect(intersectionOverUnion(box!, labelBox)).toBeGreaterThanOrEqual(0.7);
  });

  it('finds nothing in pure noise', async () => {
    let seed = 12345;
    const data = new Uint8Array(300 * 400 * 3).map(() => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return seed >>> 24;
    });
    expect(detectLabel({ data, width: 300, height: 400 })).toBeNull();
  });

  it('finds nothing to crop when the photo is the label edge to edge', async () => {
    expect(detectLabel(await renderLabel())).toBeNull();
  });
});
