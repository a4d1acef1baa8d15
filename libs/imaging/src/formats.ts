export type ImageFormat = 'jpeg' | 'png' | 'webp' | 'avif' | 'gif' | 'bmp' | 'tiff';

/** The formats the collection services accept, in the order docs/protocol.md §9 lists them. */
export const ACCEPTED_FORMATS: readonly ImageFormat[] = Object.freeze([
  'jpeg',
  'png',
  'webp',
  'avif',
  'gif',
  'bmp',
  'tiff',
] as const);

const startsWith = (data: Buffer, bytes: readonly number[], at = 0): boolean =>
  data.length >= at + bytes.length && bytes.every((b, i) => data[at + i] === b);

const ascii = (data: Buffer, at: number, text: string): boolean =>
  data.length >= at + text.length && data.toString('latin1', at, at + text.length) === text;

/**
 * BMP info-header sizes that exist (core, v2, v3, OS/2 v2, v4, v5). "BM" alone is
 * two printable letters, so a text file could start with it; the header size makes it specific.
 */
const BMP_INFO_HEADER_SIZES = new Set([12, 40, 52, 56, 64, 108, 124]);

/** AVIF still and sequence brands; HEIC files carry 'heic'/'heix'/'mif1' without these. */
const AVIF_BRANDS = new Set(['avif', 'avis']);

function isAvif(data: Buffer): boolean {
  if (!ascii(data, 4, 'ftyp')) return false;
  const boxSize = Math.min(data.readUInt32BE(0), data.length);
  if (AVIF_BRANDS.has(data.toString('latin1', 8, 12))) return true;
  // Compatible brands follow the major brand (8..12) and minor version (12..16).
  for (let at = 16; at + 4 <= boxSize; at += 4) {
    if (AVIF_BRANDS.has(data.toString('latin1', at, at + 4))) return true;
  }
  return false;
}

function isBmp(data: Buffer): boolean {
  return ascii(data, 0, 'BM') && data.length >= 18 && BMP_INFO_HEADER_SIZES.has(data.readUInt32LE(14));
}

/** Identifies an accepted format from magic bytes only; anything else (SVG, PDF, HEIC, text) is null. */
export function sniffFormat(data: Buffer): ImageFormat | null {
  if (startsWith(data, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (startsWith(data, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (ascii(data, 0, 'GIF87a') || ascii(data, 0, 'GIF89a')) return 'gif';
  if (ascii(data, 0, 'RIFF') && ascii(data, 8, 'WEBP')) return 'webp';
  if (data.length >= 12 && isAvif(data)) return 'avif';
  if (isBmp(data)) return 'bmp';
  // Classic TIFF (42) and BigTIFF (43), little- and big-endian; libtiff reads both.
  if (startsWith(data, [0x49, 0x49, 0x2a, 0x00]) || startsWith(data, [0x4d, 0x4d, 0x00, 0x2a])) return 'tiff';
  if (startsWith(data, [0x49, 0x49, 0x2b, 0x00]) || startsWith(data, [0x4d, 0x4d, 0x00, 0x2b])) return 'tiff';
  return null;
}
