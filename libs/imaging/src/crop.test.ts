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
