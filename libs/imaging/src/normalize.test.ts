import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { normalizeImage } from './decode';
import { MAX_ASPECT_OF_PREFERRED_SIDE, planResize } from './resize-plan';
import { photoLike, rawSharp } from './testing/test-images';

const noisyJpeg = (width: number, height: number): Promise<Buffer> =>
  sharp({ create: { width, height, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 40 } } })
    .jpeg()
    .toBuffer();

describe('normalizeImage', () => {
  it('shrinks 3000x2000 to 900x600 for a preferred side of 600', async () => {
    const out = await normalizeImage(await noisyJpeg(3000, 2000), { preferredSide: 600 });
    expect([out.width, out.height, out.data.length]).toEqual([900, 600, 900 * 600 * 3]);
    expect(out.scale).toBeCloseTo(0.3, 10);
    expect(out.original).toEqual({ format: 'jpeg', width: 3000, height: 2000 });
  });

  it('leaves a 300x200 image at its size (never enlarges)', async () => {
    const img = await photoLike(300, 200);
    const out = await normalizeImage(await rawSharp(img).png().toBuffer(), { preferredSide: 600 });
    expect([out.width, out.height, out.scale]).toEqual([300, 200, 1]);
    expect(Buffer.from(out.data).equals(Buffer.from(img.data))).toBe(true);
  });

  it('caps the long side of a panorama at four times the preferred side', async () => {
    const out = await normalizeImage(await noisyJpeg(6000, 1000), { preferredSide: 600 });
    expect([out.width, out.height]).toEqual([2400, 400]);
    expect(out.scale).toBeCloseTo(0.4, 10);
  });

  it('measures the smallest side after EXIF rotation', async () => {
    const data = await sharp(await noisyJpeg(2000, 1200)).withMetadata({ orientation: 8 }).toBuffer();
    const out = await normalizeImage(data, { preferredSide: 600 });
    expect([out.width, out.height]).toEqual([600, 1000]);
    expect(out.original).toEqual({ format: 'jpeg', width: 1200, height: 2000 });
  });

  it('flattens transparency onto white and returns 3 channels for a grey+alpha PNG', async () => {
    const png = await sharp({ create: { width: 20, height: 10, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .toColourspace('b-w')
      .png()
      .toBuffer();
    const out = await normalizeImage(png, { preferredSide: 600 });
    expect(out.data.length).toBe(20 * 10 * 3);
    expect(out.data.every((v) => v === 255)).toBe(true);
  });

  it('reduces a 16-bit PNG to 8-bit RGB', async () => {
    const img = await photoLike(40, 30);
    const png16 = await rawSharp(img).toColourspace('rgb16').png().toBuffer();
    expect((await sharp(png16).metadata()).depth).toBe('ushort');
    const out = await normalizeImage(png16, { preferredSide: 600 });
    expect(out.data.length).toBe(40 * 30 * 3);
    let diff = 0;
    for (let i = 0; i < out.data.length; i++) diff = Math.max(diff, Math.abs(out.data[i] - img.data[i]));
    expect(diff).toBeLessThanOrEqual(1);
  });

  it('converts a CMYK JPEG to sRGB', async () => {
    const cmyk = await sharp({ create: { width: 16, height: 16, channels: 3, background: { r: 200, g: 30, b: 30 } } })
      .toColourspace('cmyk')
      .jpeg()
      .toBuffer();
    expect((await sharp(cmyk).metadata()).space).toBe('cmyk');
    const out = await normalizeImage(cmyk, { preferredSide: 600 });
    const [r, g, b] = out.data;
    expect(r).toBeGreaterThan(150);
    expect(g).toBeLessThan(90);
    expect(b).toBeLessThan(90);
  });
});

describe('planResize', () => {
  it('keeps the aspect ratio and rounds to whole pixels', () => {
    expect(planResize(1001, 3001, 500)).toEqual({ width: 500, height: 1499, scale: 500 / 1001 });
  });

  it('shrinks an image whose smallest side is already small when its long side exceeds the cap', () => {
    const plan = planResize(5000, 300, 600);
    expect(plan.width).toBe(MAX_ASPECT_OF_PREFERRED_SIDE * 600);
    expect(plan.height).toBe(144);
  });

  it('rejects a non-positive preferred side', () => {
    expect(() => planResize(10, 10, 0)).toThrow(RangeError);
  });
});
