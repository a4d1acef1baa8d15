import sharp from 'sharp';
import type { Sharp } from 'sharp';
import { crc32 } from 'node:zlib';
import { seededRandom } from '@loupe/fingerprint';
import type { RgbImage } from '../types';

export { seededRandom };

/** A label-like picture: gradient background, overlapping shapes, a word, and sensor-like noise. */
export async function photoLike(width: number, height: number, seed = 1): Promise<RgbImage> {
  const random = seededRandom(seed);
  const shapes: string[] = [];
  for (let i = 0; i < 12; i++) {
    const color = `rgb(${(random() * 255) | 0},${(random() * 255) | 0},${(random() * 255) | 0})`;
    const x = random() * width;
    const y = random() * height;
    const size = (0.05 + random() * 0.25) * Math.min(width, height);
    shapes.push(
      i % 2
        ? `<circle cx="${x}" cy="${y}" r="${size}" fill="${color}"/>`
        : `<rect x="${x}" y="${y}" width="${size * 1.5}" height="${size}" fill="${color}"/>`,
    );
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <defs><linearGradient id="g" x2="1" y2="1"><stop offset="0" stop-color="#204080"/><stop offset="1" stop-color="#e0c060"/></linearGradient></defs>
    <rect width="100%" height="100%" fill="url(#g)"/>${shapes.join('')}
    <text x="10%" y="60%" font-size="${Math.round(height / 6)}" font-family="sans-serif" fill="#fff">Chateau</text></svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const pixels = new Uint8Array(data);
  for (let i = 0; i < pixels.length; i++) pixels[i] = clamp(pixels[i] + (random() - 0.5) * 24);
  return { data: pixels, width: info.width, height: info.height };
}

/** One flat color plus per-pixel noise of the given amplitude (levels, peak to peak). */
export function flatColor(width: number, height: number, rgb: [number, number, number], noise = 0, seed = 2): RgbImage {
  const random = seededRandom(seed);
  const data = new Uint8Array(width * height * 3);
  for (let i = 0; i < data.length; i++) data[i] = clamp(rgb[i % 3] + (random() - 0.5) * noise);
  return { data, width, height };
}

const clamp = (v: number): number => Math.max(0, Math.min(255, Math.round(v)));

/** Surrounds an image with a solid border of the given width on every side. */
export function addBorder(img: RgbImage, border: number, rgb: [number, number, number]): RgbImage {
  const width = img.width + 2 * border;
  const height = img.height + 2 * border;
  const out = flatColor(width, height, rgb);
  for (let y = 0; y < img.height; y++) {
    out.data.set(img.data.subarray(y * img.width * 3, (y + 1) * img.width * 3), ((y + border) * width + border) * 3);
  }
  return { data: out.data, width, height };
}

export const rawSharp = (img: RgbImage): Sharp =>
  sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 } });

/**
 * Writes an uncompressed BMP by hand (sharp cannot): 24-bit with a 40-byte header, or 32-bit
 * BI_BITFIELDS with a v5 header and alpha mask, the layout GIMP and ImageMagick emit.
 */
export function makeBmp(img: RgbImage, bits: 24 | 32, opts: { topDown?: boolean; alpha?: Uint8Array } = {}): Buffer {
  const infoSize = bits === 24 ? 40 : 124;
  const stride = Math.ceil((img.width * bits) / 32) * 4;
  const offset = 14 + infoSize;
  const out = Buffer.alloc(offset + stride * img.height);
  out.write('BM', 0, 'latin1');
  out.writeUInt32LE(out.length, 2);
  out.writeUInt32LE(offset, 10);
  out.writeUInt32LE(infoSize, 14);
  out.writeInt32LE(img.width, 18);
  out.writeInt32LE(opts.topDown ? -img.height : img.height, 22);
  out.writeUInt16LE(1, 26);
  out.writeUInt16LE(bits, 28);
  out.writeUInt32LE(bits === 32 ? 3 : 0, 30);
  out.writeUInt32LE(stride * img.height, 34);
  if (bits === 32) {
    out.writeUInt32LE(0x00ff0000, 54);
    out.writeUInt32LE(0x0000ff00, 58);
    out.writeUInt32LE(0x000000ff, 62);
    out.writeUInt32LE(0xff000000, 66);
    out.write('BGRs', 70, 'latin1');
  }
  for (let y = 0; y < img.height; y++) {
    const fileRow = opts.topDown ? y : img.height - 1 - y;
    for (let x = 0; x < img.width; x++) {
      const src = (y * img.width + x) * 3;
      const dst = offset + fileRow * stride + x * (bits / 8);
      out[dst] = img.data[src + 2];
      out[dst + 1] = img.data[src + 1];
      out[dst + 2] = img.data[src];
      if (bits === 32) out[dst + 3] = opts.alpha ? opts.alpha[y * img.width + x] : 255;
    }
  }
  return out;
}

function pngChunk(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])) >>> 0, 0);
  return Buffer.concat([head, body, crc]);
}

function pngChunks(png: Buffer): { type: string; body: Buffer }[] {
  const chunks: { type: string; body: Buffer }[] = [];
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    chunks.push({ type: png.toString('latin1', at + 4, at + 8), body: png.subarray(at + 8, at + 8 + length) });
    at += 12 + length;
  }
  return chunks;
}

function frameControl(sequence: number, width: number, height: number): Buffer {
  const body = Buffer.alloc(26);
  body.writeUInt32BE(sequence, 0);
  body.writeUInt32BE(width, 4);
  body.writeUInt32BE(height, 8);
  body.writeUInt16BE(1, 20); // delay 1/10 s
  body.writeUInt16BE(10, 22);
  return pngChunk('fcTL', body);
}

/** A two-frame APNG assembled from two same-sized PNGs (acTL, fcTL, IDAT, fcTL, fdAT). */
export async function makeApng(first: RgbImage, second: RgbImage): Promise<Buffer> {
  const a = pngChunks(await rawSharp(first).png().toBuffer());
  const b = pngChunks(await rawSharp(second).png().toBuffer());
  const actl = Buffer.alloc(8);
  actl.writeUInt32BE(2, 0);
  const parts: Buffer[] = [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])];
  parts.push(pngChunk('IHDR', a.find((c) => c.type === 'IHDR')!.body), pngChunk('acTL', actl));
  parts.push(frameControl(0, first.width, first.height));
  for (const c of a.filter((c) => c.type === 'IDAT')) parts.push(pngChunk('IDAT', c.body));
  parts.push(frameControl(1, second.width, second.height));
  let sequence = 2;
  for (const c of b.filter((c) => c.type === 'IDAT')) {
    const seq = Buffer.alloc(4);
    seq.writeUInt32BE(sequence++, 0);
    parts.push(pngChunk('fdAT', Buffer.concat([seq, c.body])));
  }
  parts.push(pngChunk('IEND', Buffer.alloc(0)));
  return Buffer.concat(parts);
}

/** A two-frame animation (red frame then green) in GIF or WebP, made by sharp from a two-page strip. */
export async function makeAnimated(format: 'gif' | 'webp'): Promise<Buffer> {
  const width = 48;
  const page = 48;
  const strip = new Uint8Array(width * page * 2 * 3);
  for (let p = 0; p < width * page * 2; p++) strip[p * 3 + (p < width * page ? 0 : 1)] = 255;
  const input = sharp(strip, { raw: { width, height: page * 2, channels: 3, pageHeight: page } });
  return format === 'gif' ? input.gif({ loop: 0, delay: [100, 100] }).toBuffer() : input.webp({ loop: 0, delay: [100, 100] }).toBuffer();
}
