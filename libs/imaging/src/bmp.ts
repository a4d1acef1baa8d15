import decodeBmpPixels = require('decode-bmp');
import { corrupt, ImageInputError, tooManyPixels, unsupportedFormat } from './errors';
import { MAX_INPUT_PIXELS } from './limits';

/** Decoded BMP pixels: packed RGBA, top row first. */
export interface RgbaPixels {
  data: Uint8Array;
  width: number;
  height: number;
}

export interface BmpHeader {
  width: number;
  height: number;
  /** Rows are stored top row first (negative height in the file). */
  topDown: boolean;
  bitsPerPixel: number;
  compression: number;
  pixelOffset: number;
  infoHeaderSize: number;
  paletteSize: number;
  /** 32-bit only: whether the fourth byte carries alpha rather than padding. */
  alphaDeclared: boolean;
}

const FILE_HEADER_SIZE = 14;
/** BITMAPINFOHEADER, the oldest header decode-bmp reads correctly; v4/v5 extend it. */
const INFO_HEADER_SIZE = 40;
/** Core (12) and OS/2 v2 (64) headers lay fields out differently; decode-bmp misreads them. */
const READABLE_INFO_HEADER_SIZES = new Set([40, 52, 56, 108, 124]);
const BI_RGB = 0;
const BI_RLE8 = 1;
const BI_RLE4 = 2;
const BI_BITFIELDS = 3;
/** decode-bmp reads palette depths and 24/32-bit BGR(A); 16-bit (555/565) it rejects. */
const READABLE_DEPTHS = new Set([1, 4, 8, 24, 32]);
/** The only 32-bit channel layout decode-bmp understands: B, G, R bytes, then the fourth byte. */
const BGRA_MASKS = [0x00ff0000, 0x0000ff00, 0x000000ff] as const;

/** Reads and checks the BMP headers; throws ImageInputError for layouts decode-bmp would garble. */
export function readBmpHeader(data: Buffer): BmpHeader {
  if (data.length < FILE_HEADER_SIZE + INFO_HEADER_SIZE) throw corrupt();
  const infoHeaderSize = data.readUInt32LE(14);
  if (!READABLE_INFO_HEADER_SIZES.has(infoHeaderSize)) {
    throw unsupportedFormat(`BMP with a ${infoHeaderSize}-byte header`);
  }
  const width = data.readInt32LE(18);
  const rawHeight = data.readInt32LE(22);
  const bitsPerPixel = data.readUInt16LE(28);
  const compression = data.readUInt32LE(30);
  if (width <= 0 || rawHeight === 0) throw corrupt();

  if (compression === BI_RLE8 || compression === BI_RLE4) throw unsupportedFormat('run-length-encoded BMP');
  if (!READABLE_DEPTHS.has(bitsPerPixel)) throw unsupportedFormat(`${bitsPerPixel}-bit BMP`);
  let alphaDeclared = bitsPerPixel === 32;
  if (compression === BI_BITFIELDS) {
    if (bitsPerPixel !== 32 || data.length < 66) throw unsupportedFormat('BMP with unusual channel masks');
    const masks = [data.readUInt32LE(54), data.readUInt32LE(58), data.readUInt32LE(62)];
    if (masks.some((m, i) => m !== BGRA_MASKS[i])) throw unsupportedFormat('BMP with unusual channel masks');
    // v3+ headers hold an alpha mask at 66; a zero mask says the fourth byte is padding.
    alphaDeclared = infoHeaderSize >= 56 && data.length >= 70 && data.readUInt32LE(66) !== 0;
  } else if (compression !== BI_RGB) {
    throw unsupportedFormat('compressed BMP');
  }

  const colorsUsed = data.readUInt32LE(46);
  const paletteSize = bitsPerPixel <= 8 ? colorsUsed || 1 << bitsPerPixel : 0;
  return {
    width,
    height: Math.abs(rawHeight),
    topDown: rawHeight < 0,
    bitsPerPixel,
    compression,
    pixelOffset: data.readUInt32LE(10),
    infoHeaderSize,
    paletteSize,
    alphaDeclared,
  };
}

const rowStride = (width: number, bitsPerPixel: number): number => Math.ceil((width * bitsPerPixel) / 32) * 4;

/**
 * decode-bmp ignores the pixel-data offset, masks and negative heights, so it is given a
 * canonical copy: a 40-byte header, the palette, then exactly the pixel rows.
 */
function canonicalBmp(data: Buffer, header: BmpHeader): Buffer {
  const paletteBytes = header.paletteSize * 4;
  const paletteStart = FILE_HEADER_SIZE + header.infoHeaderSize;
  const pixelBytes = rowStride(header.width, header.bitsPerPixel) * header.height;
  if (paletteStart + paletteBytes > data.length || header.pixelOffset + pixelBytes > data.length) throw corrupt();

  const out = Buffer.alloc(FILE_HEADER_SIZE + INFO_HEADER_SIZE + paletteBytes + pixelBytes);
  const pixelStart = FILE_HEADER_SIZE + INFO_HEADER_SIZE + paletteBytes;
  out.write('BM', 0, 'latin1');
  out.writeUInt32LE(out.length, 2);
  out.writeUInt32LE(pixelStart, 10);
  out.writeUInt32LE(INFO_HEADER_SIZE, 14);
  out.writeInt32LE(header.width, 18);
  out.writeInt32LE(header.height, 22);
  out.writeUInt16LE(1, 26);
  out.writeUInt16LE(header.bitsPerPixel, 28);
  out.writeUInt32LE(BI_RGB, 30);
  out.writeUInt32LE(header.paletteSize, 46);
  data.copy(out, FILE_HEADER_SIZE + INFO_HEADER_SIZE, paletteStart, paletteStart + paletteBytes);
  data.copy(out, pixelStart, header.pixelOffset, header.pixelOffset + pixelBytes);
  return out;
}

function flipRows(rgba: Uint8Array, width: number, height: number): void {
  const stride = width * 4;
  const row = new Uint8Array(stride);
  for (let top = 0, bottom = height - 1; top < bottom; top++, bottom--) {
    row.set(rgba.subarray(top * stride, (top + 1) * stride));
    rgba.copyWithin(top * stride, bottom * stride, (bottom + 1) * stride);
    rgba.set(row, bottom * stride);
  }
}

/** Makes every pixel opaque unless the fourth byte really is alpha (declared, and not all zero). */
function settleAlpha(rgba: Uint8Array, header: BmpHeader): void {
  if (header.alphaDeclared) {
    for (let i = 3; i < rgba.length; i += 4) if (rgba[i] !== 0) return;
  }
  for (let i = 3; i < rgba.length; i += 4) rgba[i] = 255;
}

/** Decodes a BMP with decode-bmp after checking it is a layout decode-bmp reads exactly. */
export function decodeBmp(data: Buffer): RgbaPixels {
  const header = readBmpHeader(data);
  const pixels = header.width * header.height;
  if (pixels > MAX_INPUT_PIXELS) throw tooManyPixels(pixels, MAX_INPUT_PIXELS);
  let decoded: { data: Uint8ClampedArray; width: number; height: number };
  try {
    decoded = decodeBmpPixels(canonicalBmp(data, header));
  } catch (error) {
    if (error instanceof ImageInputError) throw error;
    throw corrupt();
  }
  const rgba = new Uint8Array(decoded.data.buffer, decoded.data.byteOffset, decoded.data.byteLength);
  if (header.topDown) flipRows(rgba, header.width, header.height);
  settleAlpha(rgba, header);
  return { data: rgba, width: header.width, height: header.height };
}
