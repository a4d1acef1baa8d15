import { rgbToGray } from '@loupe/fingerprint';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { estimateSkew, rotateGrey } from './deskew';
import { otsuThreshold, histogram } from './grey';
import { labelSvg, toRgbImage } from './testing/label-fixtures';

describe('skew estimation', () => {
  it.each([-6, 0, 4])('recovers a %i° tilt of the text within one degree', async (deg) => {
    const img = await toRgbImage(sharp(Buffer.from(labelSvg())).rotate(deg, { background: '#f3ead6' }));
    expect(Math.abs(estimateSkew(rgbToGray(img)) - deg)).toBeLessThanOrEqual(1);
  });

  it('straightens the text so that a second estimate finds no tilt', async () => {
    const grey = rgbToGray(await toRgbImage(sharp(Buffer.from(labelSvg())).rotate(5, { background: '#f3ead6' })));
    expect(Math.abs(estimateSkew(rotateGrey(grey, estimateSkew(grey))))).toBeLessThanOrEqual(0.5);
  });
});

describe('Otsu threshold', () => {
  it('splits a two-level image between its levels', () => {
    const data = new Uint8Array(1000).map((_, i) => (i % 3 === 0 ? 40 : 210));
    const t = otsuThreshold(histogram({ data, width: 1000, height: 1 }));
    expect(t).toBeGreaterThanOrEqual(40);
    expect(t).toBeLessThan(210);
  });
});
