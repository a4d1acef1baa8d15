import { describe, expect, it } from 'vitest';
import { findContentBox, findContentInsideFlatBands } from './content-box';
import { normalizeImage } from './decode';
import { addBorder, flatColor, photoLike, rawSharp } from './testing/test-images';
import type { RgbImage } from './types';

async function viaJpeg(img: RgbImage): Promise<RgbImage> {
  return normalizeImage(await rawSharp(img).jpeg({ quality: 80 }).toBuffer(), { preferredSide: 2000 });
}

describe('findContentBox', () => {
  it('removes a 20 px white border exactly', async () => {
    const img = addBorder(await photoLike(200, 150), 20, [255, 255, 255]);
    expect(findContentBox(img)).toEqual({ left: 20, top: 20, right: 220, bottom: 170 });
  });

  it('removes a 15 px black border exactly', async () => {
    const img = addBorder(await photoLike(200, 150), 15, [0, 0, 0]);
    expect(findContentBox(img)).toEqual({ left: 15, top: 15, right: 215, bottom: 165 });
  });

  it('removes a 20 px white mat and a 15 px black frame nested around each other', async () => {
    const img = addBorder(addBorder(await photoLike(200, 150), 15, [0, 0, 0]), 20, [255, 255, 255]);
    expect(findContentBox(img)).toEqual({ left: 35, top: 35, right: 235, bottom: 185 });
  });

  it('finds the borders within 2 px after JPEG compression', async () => {
    const img = await viaJpeg(addBorder(addBorder(await photoLike(200, 150), 15, [0, 0, 0]), 20, [255, 255, 255]));
    const box = findContentBox(img);
    const expected = { left: 35, top: 35, right: 235, bottom: 185 };
    for (const side of ['left', 'top', 'right', 'bottom'] as const) {
      expect(Math.abs(box[side] - expected[side]), side).toBeLessThanOrEqual(2);
    }
  });

  it('keeps an image without borders whole', async () => {
    const img = await photoLike(200, 150);
    expect(findContentBox(img)).toEqual({ left: 0, top: 0, right: 200, bottom: 150 });
  });

  it('never crops a flat image to nothing', () => {
    expect(findContentBox(flatColor(50, 40, [10, 200, 10], 4))).toEqual({ left: 0, top: 0, right: 50, bottom: 40 });
  });

  it('handles a border on only one side', async () => {
    const content = await photoLike(100, 80);
    const img = flatColor(130, 80, [255, 255, 255]);
    for (let y = 0; y < 80; y++) img.data.set(content.data.subarray(y * 300, (y + 1) * 300), (y * 130 + 30) * 3);
    expect(findContentBox(img)).toEqual({ left: 30, top: 0, right: 130, bottom: 80 });
  });

  /** A plain wallpaper: `band` flat lines along one side, then its colour shades away by a third of a level per line. */
  function bandOverGradient(width: number, height: number, band: number, vertical: boolean): RgbImage {
    const data = new Uint8Array(width * height * 3);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const shade = Math.max(0, (vertical ? x : y) - band) / 3;
        data.set([104, Math.round(50 + shade), Math.round(24 + shade / 4)], (y * width + x) * 3);
      }
    }
    return { width, height, data };
  }

  it('takes a flat band off where a gradient starts, not where the gradient has drifted as far as a border run may', () => {
    const band = 40;
    const box = findContentBox(bandOverGradient(240, 300, band, false));
    // The band and the lines still within a few levels of it (10 at this slope); a run that goes on while lines stay
    // within 10 levels of its first takes 30 lines of the gradient too.
    expect(box.top).toBeGreaterThanOrEqual(band);
    expect(box.top).toBeLessThanOrEqual(band + 12);
  });

  it('never cuts a band that ends sooner where the whole run took more than a quarter of the side', () => {
    // 130 flat columns of 600 (22 %), and the run within 10 levels of them reaches 161 (27 %): the side stays whole,
    // as it does in an edited copy whose shading ends the band elsewhere.
    const box = findContentBox(bandOverGradient(600, 200, 130, true));
    expect(box).toEqual({ left: 0, top: 0, right: 600, bottom: 200 });
  });

  it('keeps a flat band wider than a border may be, which findContentInsideFlatBands takes off (a flat sky over a third of a crop)', async () => {
    const picture = await photoLike(200, 140);
    const sky = 70;
    const data = new Uint8Array(200 * (sky + 140) * 3);
    for (let i = 0; i < 200 * sky; i++) data.set([240, 205, 215], i * 3);
    data.set(picture.data, 200 * sky * 3);
    const img: RgbImage = { width: 200, height: sky + 140, data };
    expect(findContentBox(img)).toEqual({ left: 0, top: 0, right: 200, bottom: 210 });
    expect(findContentInsideFlatBands(img)).toEqual({ left: 0, top: sky, right: 200, bottom: 210 });
    // Where the bands are borders, both cut the same.
    const framed = addBorder(picture, 20, [255, 255, 255]);
    expect(findContentInsideFlatBands(framed)).toEqual(findContentBox(framed));
  });
});
