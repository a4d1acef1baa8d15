import sharp from 'sharp';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeToRgb, normalizeImage } from './decode';
import { ImageInputError, type ImageErrorCode } from './errors';
import { flatColor, makeAnimated, makeApng, makeBmp, photoLike, rawSharp } from './testing/test-images';
import type { ImageInfo, RgbImage } from './types';

/**
 * What the query and add paths learn of an upload: normalising probes the header and decodes every block (shrunk, as
 * JPEG shrink-on-load still reads them all), so it is also the validation.
 */
async function inspect(data: Buffer): Promise<ImageInfo> {
  return (await normalizeImage(data, { preferredSide: 64 })).original;
}

async function refusal(data: Buffer): Promise<ImageInputError> {
  try {
    await inspect(data);
  } catch (error) {
    if (error instanceof ImageInputError) return error;
    throw error;
  }
  throw new Error('image was accepted');
}

async function expectRefused(data: Buffer, code: ImageErrorCode): Promise<string> {
  const error = await refusal(data);
  expect(error.code).toBe(code);
  return error.message;
}

const meanAbsDiff = (a: RgbImage, b: RgbImage): number => {
  let sum = 0;
  for (let i = 0; i < a.data.length; i++) sum += Math.abs(a.data[i] - b.data[i]);
  return sum / a.data.length;
};

describe('validation (normalizeImage) and decodeToRgb on every accepted format', () => {
  const cases: [string, (img: RgbImage) => Promise<Buffer>, number][] = [
    // [format, encoder, largest mean per-channel difference after the round trip]
    ['jpeg', (img) => rawSharp(img).jpeg({ quality: 90 }).toBuffer(), 10],
    ['png', (img) => rawSharp(img).png().toBuffer(), 0],
    ['webp', (img) => rawSharp(img).webp({ lossless: true }).toBuffer(), 0],
    ['avif', (img) => rawSharp(img).avif({ quality: 80 }).toBuffer(), 8],
    ['gif', (img) => rawSharp(img).gif().toBuffer(), 12],
    ['tiff', (img) => rawSharp(img).tiff({ compression: 'lzw' }).toBuffer(), 0],
    ['bmp', async (img) => makeBmp(img, 24), 0],
  ];

  for (const [format, encode, tolerance] of cases) {
    it(`reads ${format} with its size and pixels intact`, async () => {
      const img = await photoLike(90, 60, 7);
      const data = await encode(img);
      expect(await inspect(data)).toEqual({ format, width: 90, height: 60 });
      const decoded = await decodeToRgb(data);
      expect([decoded.width, decoded.height, decoded.data.length]).toEqual([90, 60, 90 * 60 * 3]);
      expect(meanAbsDiff(decoded, img)).toBeLessThanOrEqual(tolerance);
    });
  }
});

describe('BMP variants', () => {
  it('reads a 32-bit v5 BMP exactly', async () => {
    const img = await photoLike(33, 21, 3);
    expect(meanAbsDiff(await decodeToRgb(makeBmp(img, 32)), img)).toBe(0);
  });

  it('reads a top-down BMP the right way up', async () => {
    const img = await photoLike(33, 21, 4);
    expect(meanAbsDiff(await decodeToRgb(makeBmp(img, 24, { topDown: true })), img)).toBe(0);
  });

  it('flattens a transparent 32-bit BMP onto white', async () => {
    const img = flatColor(8, 8, [0, 0, 0]);
    const decoded = await decodeToRgb(makeBmp(img, 32, { alpha: new Uint8Array(64).map((_, i) => (i < 32 ? 0 : 255)) }));
    expect(Array.from(decoded.data.subarray(0, 3))).toEqual([255, 255, 255]);
    expect(Array.from(decoded.data.subarray(32 * 3, 32 * 3 + 3))).toEqual([0, 0, 0]);
  });

  it('refuses run-length-encoded and 16-bit BMPs instead of decoding garbage', async () => {
    const rle = makeBmp(flatColor(8, 8, [1, 2, 3]), 24);
    rle.writeUInt16LE(8, 28);
    rle.writeUInt32LE(1, 30);
    expect(await expectRefused(rle, 'unsupported_format')).toMatch(/run-length/);
    const sixteen = makeBmp(flatColor(8, 8, [1, 2, 3]), 24);
    sixteen.writeUInt16LE(16, 28);
    expect(await expectRefused(sixteen, 'unsupported_format')).toMatch(/16-bit BMP/);
  });

  it('refuses a truncated BMP as corrupt', async () => {
    const bmp = makeBmp(await photoLike(40, 40), 24);
    await expectRefused(bmp.subarray(0, bmp.length - 500), 'corrupt');
  });
});

describe('orientation', () => {
  it('reports width and height as displayed for EXIF orientation 6', async () => {
    const img = await photoLike(80, 40, 5);
    const data = await rawSharp(img).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    expect(await inspect(data)).toEqual({ format: 'jpeg', width: 40, height: 80 });
    const decoded = await decodeToRgb(data);
    expect([decoded.width, decoded.height]).toEqual([40, 80]);
    // Orientation 6 means "rotate 90° clockwise to display": the stored top-left lands top-right.
    const expected = await sharp(await sharp(data).raw().toBuffer(), { raw: { width: 80, height: 40, channels: 3 } })
      .rotate(90)
      .raw()
      .toBuffer();
    expect(meanAbsDiff(decoded, { data: expected, width: 40, height: 80 })).toBe(0);
  });
});

describe('refusals', () => {
  it('refuses animated GIF, WebP and PNG', async () => {
    const frame = (rgb: [number, number, number]) => flatColor(16, 16, rgb);
    for (const data of [await makeAnimated('gif'), await makeAnimated('webp'), await makeApng(frame([255, 0, 0]), frame([0, 255, 0]))]) {
      expect(await expectRefused(data, 'animated')).toBe('Animated images are not supported.');
    }
  });

  it('accepts a single-frame GIF and WebP', async () => {
    const img = await photoLike(30, 20);
    expect((await inspect(await rawSharp(img).gif().toBuffer())).format).toBe('gif');
    expect((await inspect(await rawSharp(img).webp().toBuffer())).format).toBe('webp');
  });

  it('refuses a truncated JPEG and a truncated PNG as corrupt', async () => {
    const img = await photoLike(200, 150);
    const jpeg = await rawSharp(img).jpeg().toBuffer();
    const png = await rawSharp(img).png().toBuffer();
    expect(await expectRefused(jpeg.subarray(0, jpeg.length >> 1), 'corrupt')).toBe('The image data is corrupt or truncated.');
    await expectRefused(png.subarray(0, png.length >> 1), 'corrupt');
  });

  it('refuses random bytes, SVG and text as unsupported', async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40"/></svg>');
    const random = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 2654435761) >>> 24));
    for (const data of [svg, random, Buffer.from('hello')]) {
      expect(await expectRefused(data, 'unsupported_format')).toBe(
        'Unsupported image format; accepted formats are JPEG, PNG, WEBP, AVIF, GIF, BMP, TIFF.',
      );
    }
  });

  it('refuses a JPEG header followed by garbage as corrupt', async () => {
    const data = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(500, 0x41)]);
    await expectRefused(data, 'corrupt');
  });

  it('refuses an empty file', async () => {
    await expectRefused(Buffer.alloc(0), 'empty');
  });

  it('refuses a PNG declaring 200 megapixels before decoding it', async () => {
    const png = Buffer.from(await sharp({ create: { width: 4, height: 4, channels: 3, background: '#888' } }).png().toBuffer());
    png.writeUInt32BE(20_000, 16);
    png.writeUInt32BE(10_000, 20);
    png.writeUInt32BE(crc32(png.subarray(12, 29)) >>> 0, 29);
    expect(await expectRefused(png, 'too_many_pixels')).toBe('The image is too large (200 megapixels; the limit is 100).');
  });

  it('refuses a BMP declaring too many pixels', async () => {
    const bmp = makeBmp(flatColor(4, 4, [9, 9, 9]), 24);
    bmp.writeInt32LE(20_000, 18);
    bmp.writeInt32LE(20_000, 22);
    await expectRefused(bmp, 'too_many_pixels');
  });
});
