import { describe, expect, it } from 'vitest';
import { ACCEPTED_FORMATS, sniffFormat } from './formats';
import { makeBmp, photoLike, rawSharp } from './testing/test-images';

describe('sniffFormat', () => {
  it('recognises every accepted format that sharp writes, from magic bytes', async () => {
    const img = await photoLike(40, 30);
    const written = {
      jpeg: await rawSharp(img).jpeg().toBuffer(),
      png: await rawSharp(img).png().toBuffer(),
      webp: await rawSharp(img).webp().toBuffer(),
      avif: await rawSharp(img).avif().toBuffer(),
      gif: await rawSharp(img).gif().toBuffer(),
      tiff: await rawSharp(img).tiff().toBuffer(),
      bmp: makeBmp(img, 24),
    };
    for (const [format, data] of Object.entries(written)) expect(sniffFormat(data), format).toBe(format);
    expect(new Set(Object.keys(written))).toEqual(new Set(ACCEPTED_FORMATS));
  });

  it('recognises big-endian TIFF', () => {
    expect(sniffFormat(Buffer.from([0x4d, 0x4d, 0x00, 0x2a, 0, 0, 0, 8]))).toBe('tiff');
  });

  it('rejects SVG, PDF, HEIC, text, empty and random bytes', () => {
    const heic = Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypheic\0\0\0\0mif1heic', 'latin1')]);
    const random = Buffer.from(Array.from({ length: 64 }, (_, i) => (i * 97 + 13) & 255));
    const samples = [
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>'),
      Buffer.from('%PDF-1.7\n'),
      heic,
      Buffer.from('BMW is a brand of car, not a bitmap'),
      Buffer.alloc(0),
      random,
    ];
    for (const sample of samples) expect(sniffFormat(sample)).toBeNull();
  });

  it('accepts an AVIF whose major brand is generic but lists avif as compatible', () => {
    const box = Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypmif1\0\0\0\0mif1avif', 'latin1')]);
    expect(sniffFormat(box)).toBe('avif');
  });
});
