import { describe, expect, it } from 'vitest';
import { assessImage, MIN_IMAGE_SIDE } from './assess';
import { normalizeImage } from './decode';
import { grayImageOf, toGray } from './gray';
import { flatColor, photoLike, rawSharp } from './testing/test-images';
import type { RgbImage } from './types';

const info = (img: RgbImage) => ({ format: 'png' as const, width: img.width, height: img.height });

/** Round trip through a JPEG, as uploads arrive. */
async function viaJpeg(img: RgbImage, quality: number): Promise<RgbImage> {
  return normalizeImage(await rawSharp(img).jpeg({ quality }).toBuffer(), { preferredSide: 600 });
}

describe('assessImage', () => {
  it('flags an image below the minimum side and says why', async () => {
    const img = await photoLike(20, 15);
    const verdict = assessImage(img, info(img));
    expect(verdict.extremelySmall).toBe(true);
    expect(verdict.reason).toBe('The image is too small (20x15 px; at least 32 px on each side is needed).');
  });

  it('judges size on the original, not the normalized image', async () => {
    const img = await photoLike(40, MIN_IMAGE_SIDE);
    expect(assessImage(img, { format: 'jpeg', width: 4000, height: 3200 }).extremelySmall).toBe(false);
    expect(assessImage(img, { format: 'jpeg', width: 40, height: MIN_IMAGE_SIDE - 1 }).extremelySmall).toBe(true);
  });

  it('flags a flat color saved as a noisy low-quality JPEG', async () => {
    const img = await viaJpeg(flatColor(640, 480, [180, 40, 60], 16), 50);
    const verdict = assessImage(img, info(img));
    expect(verdict).toMatchObject({ singleColor: true, extremelySmall: false });
    expect(verdict.reason).toMatch(/single flat color/);
  });

  it('still flags a flat color carrying a few stray pixels', () => {
    const img = flatColor(300, 300, [240, 240, 240], 6);
    for (let i = 0; i < 40; i++) img.data.set([0, 0, 0], ((i * 7919) % (300 * 300)) * 3);
    expect(assessImage(img, info(img)).singleColor).toBe(true);
  });

  it('does not flag a photo-like picture, before or after JPEG', async () => {
    const img = await photoLike(600, 400);
    expect(assessImage(img, info(img))).toEqual({ extremelySmall: false, singleColor: false, reason: null });
    expect(assessImage(await viaJpeg(img, 60), info(img)).singleColor).toBe(false);
  });

  it('does not flag a white page with a line of dark text', async () => {
    const page = flatColor(600, 400, [255, 255, 255]);
    for (let y = 180; y < 220; y++) for (let x = 100; x < 500; x += 3) page.data.set([20, 20, 20], (y * 600 + x) * 3);
    expect(assessImage(page, info(page)).singleColor).toBe(false);
  });

  it('does not flag a faint pattern on a flat color, nor its JPEG copy', async () => {
    // Small squares every 8 px fading in from left to right (up to 24 levels brighter), as in a wallpaper of faint symbols.
    const img = flatColor(600, 600, [110, 50, 140]);
    for (let y = 0; y < 600; y++) {
      for (let x = 0; x < 600; x++) {
        const lift = Math.round((24 * x) / 600);
        if (x % 8 < 4 && y % 8 < 4) img.data.set([110 + lift, 50 + lift, 140 + lift], (y * 600 + x) * 3);
      }
    }
    expect(assessImage(img, info(img)).singleColor).toBe(false);
    expect(assessImage(await viaJpeg(img, 30), info(img)).singleColor).toBe(false);
  });

  it('flags a flat color under heavy pixel noise (±16 levels)', async () => {
    expect(assessImage(await viaJpeg(flatColor(640, 480, [60, 120, 200], 32), 90), info(flatColor(1, 1, [0, 0, 0]))).singleColor).toBe(true);
  });

  it('does not flag two flat halves of different colors', () => {
    const img = flatColor(200, 200, [30, 90, 200]);
    img.data.fill(250, 0, 100 * 200 * 3);
    expect(assessImage(img, info(img)).singleColor).toBe(false);
  });
});

describe('toGray', () => {
  it('weights red, green and blue by BT.601 and keeps black and white exact', () => {
    const img = { data: new Uint8Array([255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255, 0, 0, 0]), width: 5, height: 1 };
    expect(Array.from(toGray(img))).toEqual([77, 149, 29, 255, 0]);
  });

  it('keeps the size with the grey pixels (grayImageOf)', () => {
    const img = { data: new Uint8Array([255, 255, 255, 0, 0, 0]), width: 1, height: 2 };
    expect(grayImageOf(img)).toEqual({ data: new Uint8Array([255, 0]), width: 1, height: 2 });
  });
});
