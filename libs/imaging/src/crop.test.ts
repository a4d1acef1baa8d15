import { describe, expect, it } from 'vitest';
import { findContentBox } from './content-box';
import { cropImage } from './crop';

function framed(): { data: Uint8Array; width: number; height: number } {
  const width = 40;
  const height = 30;
  const data = new Uint8Array(width * height * 3).fill(255);
  for (let y = 5; y < 25; y++) for (let x = 8; x < 32; x++) {
    const i = (y * width + x) * 3;
    data[i] = (x * 7) % 256;
    data[i + 1] = (y * 11) % 256;
    data[i + 2] = ((x + y) * 13) % 256;
  }
  return { data, width, height };
}

describe('cropImage', () => {
  it('cuts a white frame away so the content fills the image', () => {
    const img = framed();
    const box = findContentBox(img);
    const cropped = cropImage(img, box);
    expect([cropped.width, cropped.height]).toEqual([24, 20]);
    expect(Array.from(cropped.data.subarray(0, 3))).toEqual([(8 * 7) % 256, (5 * 11) % 256, (13 * 13) % 256]);
  });

  it('returns the same image when nothing is cropped', () => {
    const img = framed();
    expect(cropImage(img, { left: 0, top: 0, right: 40, bottom: 30 })).toBe(img);
  });
});

describe('solid borders versus shaded content', () => {
  function gradientWithFrame(frame: number): { data: Uint8Array; width: number; height: number } {
    const width = 200;
    const height = 150;
    const data = new Uint8Array(width * height * 3);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const i = (y * width + x) * 3;
        const inFrame = x < frame || y < frame || x >= width - frame || y >= height - frame;
        // Rows are each one color (a sky), but the color drifts from row to row.
        const shade = inFrame ? 255 : 40 + Math.round((y / height) * 180);
        data[i] = shade;
        data[i + 1] = shade;
        data[i + 2] = inFrame ? 255 : 200;
      }
    }
    return { data, width, height };
  }

  it('does not crop a smooth gradient whose rows are each one color', () => {
    expect(findContentBox(gradientWithFrame(0))).toEqual({ left: 0, top: 0, right: 200, bottom: 150 });
  });

  it('still crops a white frame around such a gradient, and only the frame', () => {
    expect(findContentBox(gradientWithFrame(12))).toEqual({ left: 12, top: 12, right: 188, bottom: 138 });
  });
});
