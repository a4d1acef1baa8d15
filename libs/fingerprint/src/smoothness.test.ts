import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { isSmoothThroughout } from './smoothness';
import * as edit from './testing/edits';
import { flatLandscape, linearGradient, softBlobs, starField, syntheticImage, toGray } from './testing/synthetic-images';
import type { RgbImage } from './types';

/** `img` with `count` small bright dots on it, like the stars of a sky. */
async function withDots(img: RgbImage, count: number): Promise<RgbImage> {
  const dots = Array.from({ length: count }, (_, i) => `<circle cx="${100 + ((i * 137) % 600)}" cy="${80 + ((i * 89) % 400)}" r="2" fill="#fff"/>`).join('');
  const svg = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${img.width}" height="${img.height}">${dots}</svg>`);
  return edit.toRgb(sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 } }).composite([{ input: svg }]));
}

describe('isSmoothThroughout', () => {
  it('holds for gradients and soft wallpapers, and for their quarters re-encoded at low quality', async () => {
    const gradient = await linearGradient(['hsl(30,55%,35%)', 'hsl(330,50%,75%)', 'hsl(280,40%,55%)']);
    expect(isSmoothThroughout(toGray(gradient))).toBe(true);
    expect(isSmoothThroughout(toGray(await edit.jpeg(await edit.crop(gradient, edit.cropBox(gradient, 0.25, 0.3, 0.7)), 30)))).toBe(true);
    const soft = await softBlobs(3);
    expect(isSmoothThroughout(toGray(await edit.jpeg(await edit.crop(soft, edit.cropBox(soft, 0.25)), 50)))).toBe(true);
  });

  it('fails for an image with a few stars, a single edge, or a rotated canvas corner', async () => {
    const gradient = await linearGradient(['hsl(220,60%,20%)', 'hsl(250,50%,35%)']);
    expect(isSmoothThroughout(toGray(await withDots(gradient, 3)))).toBe(false);
    expect(isSmoothThroughout(toGray(await starField(2)))).toBe(false);
    expect(isSmoothThroughout(toGray(await edit.rotate(gradient, 20)))).toBe(false);
    expect(isSmoothThroughout(toGray(await flatLandscape()))).toBe(false);
    expect(isSmoothThroughout(toGray(await syntheticImage(5)))).toBe(false);
  });
});
