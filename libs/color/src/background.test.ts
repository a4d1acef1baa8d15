import { describe, expect, it } from 'vitest';
import { detectBackground } from './background';
import { renderSvg } from './test-support/render';
import { LOGO_ON_WHITE_SVG, PHOTO_PATCHES_SVG, RING_SVG, THREE_COLOR_SVG, applyPhotoTexture } from './test-support/scenes';
import type { RgbImage } from './types';

const at = (mask: Uint8Array, img: RgbImage, x: number, y: number) => mask[y * img.width + x];
const share = (mask: Uint8Array) => mask.reduce((s, v) => s + v, 0) / mask.length;

describe('background detection', () => {
  it('marks the white backdrop around a logo and nothing of the logo', async () => {
    const img = await renderSvg(LOGO_ON_WHITE_SVG);
    const mask = detectBackground(img, { interior: false });
    expect(at(mask, img, 0, 0)).toBe(1);
    expect(at(mask, img, 550, 350)).toBe(1);
    expect(at(mask, img, 200, 200)).toBe(0);
    expect(at(mask, img, 400, 200)).toBe(0);
    expect(share(mask)).toBeCloseTo(1 - 60000 / 240000, 3);
  });

  it('keeps the hole of a ring unless interior background is asked for', async () => {
    const img = await renderSvg(RING_SVG);
    const outer = detectBackground(img, { interior: false });
    expect(at(outer, img, 5, 5)).toBe(1);
    expect(at(outer, img, 300, 200)).toBe(0); // the hole
    expect(at(outer, img, 300, 90)).toBe(0); // the ring
    const interior = detectBackground(img, { interior: true });
    expect(at(interior, img, 5, 5)).toBe(1);
    expect(at(interior, img, 300, 200)).toBe(1);
    expect(at(interior, img, 300, 90)).toBe(0);
  });

  it('finds a noisy, textured backdrop too', async () => {
    const img = applyPhotoTexture(await renderSvg(LOGO_ON_WHITE_SVG), 11);
    const mask = detectBackground(img, { interior: false });
    expect(share(mask)).toBeGreaterThan(0.7);
    expect(at(mask, img, 200, 200)).toBe(0);
  });

  it('finds no background when no color holds most of the border', async () => {
    // The green patch holds 44 % of the border, the most of any color.
    const patches = await renderSvg(PHOTO_PATCHES_SVG);
    expect(share(detectBackground(patches, { interior: false }))).toBe(0);
    expect(share(detectBackground(patches, { interior: true }))).toBe(0);
  });

  it('takes the color holding most of the border as background even when it is not white', async () => {
    // The 60 % blue field holds 56 % of the border.
    const img = await renderSvg(THREE_COLOR_SVG);
    const mask = detectBackground(img, { interior: false });
    expect(share(mask)).toBeCloseTo(0.6, 3);
    expect(at(mask, img, 500, 100)).toBe(0);
  });
});
