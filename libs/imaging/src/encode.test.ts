import { describe, expect, it } from 'vitest';
import { decodeToRgb } from './decode';
import { encodeJpeg, encodePng } from './encode';
import { sniffFormat } from './formats';
import { photoLike } from './testing/test-images';

describe('encoding RGB images', () => {
  it('writes a PNG that decodes to the same pixels', async () => {
    const img = await photoLike(64, 48);
    const png = await encodePng(img);
    expect(sniffFormat(png)).toBe('png');
    expect(Buffer.from((await decodeToRgb(png)).data).equals(Buffer.from(img.data))).toBe(true);
  });

  it('writes a JPEG whose size follows the quality setting', async () => {
    const img = await photoLike(64, 48);
    const low = await encodeJpeg(img, 30);
    const standard = await encodeJpeg(img);
    expect(sniffFormat(standard)).toBe('jpeg');
    expect(low.length).toBeLessThan(standard.length);
    const decoded = await decodeToRgb(standard);
    expect([decoded.width, decoded.height]).toEqual([64, 48]);
  });
});
