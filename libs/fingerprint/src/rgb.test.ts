import { describe, expect, it } from 'vitest';
import { rgbToGray } from './rgb';
import type { RgbImage } from './types';

const image = (width: number, height: number, pixel: (x: number, y: number) => [number, number, number]): RgbImage => {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set(pixel(x, y), (y * width + x) * 3);
  return { data, width, height };
};

describe('rgbToGray', () => {
  it('gives BT.601 luma within a grey level (8.8 fixed point), with black 0 and white 255', () => {
    const colors: Array<[number, number, number]> = [[0, 0, 0], [255, 255, 255], [255, 0, 0], [0, 255, 0], [0, 0, 255], [94, 33, 96]];
    const gray = rgbToGray(image(colors.length, 1, (x) => colors[x]));
    colors.forEach(([r, g, b], i) => expect(Math.abs(gray.data[i] - (0.299 * r + 0.587 * g + 0.114 * b))).toBeLessThanOrEqual(1));
    expect([gray.data[0], gray.data[1]]).toEqual([0, 255]);
    expect([gray.width, gray.height]).toEqual([colors.length, 1]);
  });

  it('converts the whole pixels of a region inside the image, rounding its edges outwards and clipping it', () => {
    const img = image(10, 8, (x, y) => [x * 20, y * 20, 0]);
    const whole = rgbToGray(img);
    const part = rgbToGray(img, { x0: 2.5, y0: 1, x1: 5.2, y1: 3 });
    expect([part.width, part.height]).toEqual([4, 2]);
    expect(Array.from(part.data)).toEqual([1, 2].flatMap((y) => [2, 3, 4, 5].map((x) => whole.data[y * 10 + x])));
    const clipped = rgbToGray(img, { x0: -4, y0: 6, x1: 30, y1: 20 });
    expect([clipped.width, clipped.height]).toEqual([10, 2]);
  });

  it('refuses pixels that are not width × height × 3 bytes', () => {
    expect(() => rgbToGray({ data: new Uint8Array(5), width: 2, height: 1 })).toThrow(RangeError);
  });
});
