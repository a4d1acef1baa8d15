import sharp from 'sharp';
import type { Metadata } from 'sharp';
import { pngFrameCount } from './apng';
import { readBmpHeader } from './bmp';
import { animated, empty, tooManyPixels, unsupportedFormat } from './errors';
import { type ImageFormat, sniffFormat } from './formats';
import { MAX_INPUT_PIXELS } from './limits';
import { SHARP_INPUT_OPTIONS, toImageInputError } from './sharp-input';
import type { ImageInfo } from './types';

/** Formats whose extra pages are animation frames (a multi-page TIFF is a document: page 1 is used). */
const ANIMATABLE_FORMATS: ReadonlySet<ImageFormat> = new Set(['gif', 'webp', 'avif']);

function checkPixels(width: number, height: number): void {
  const pixels = width * height;
  if (pixels > MAX_INPUT_PIXELS) throw tooManyPixels(pixels, MAX_INPUT_PIXELS);
}

/**
 * Header-level checks (format, animation, pixel count) without decoding the pixels.
 * Decoding later with SHARP_INPUT_OPTIONS (or decodeBmp) finds corrupt and truncated data.
 */
export async function probeImage(data: Buffer): Promise<ImageInfo> {
  if (data.length === 0) throw empty();
  const format = sniffFormat(data);
  if (format === null) throw unsupportedFormat();

  if (format === 'bmp') {
    const header = readBmpHeader(data);
    checkPixels(header.width, header.height);
    return { format, width: header.width, height: header.height };
  }

  let metadata: Metadata;
  try {
    // The pixel limit is checked below from the header, so the refusal can state the size.
    metadata = await sharp(data, { ...SHARP_INPUT_OPTIONS, limitInputPixels: false }).metadata();
  } catch (error) {
    throw toImageInputError(error);
  }
  if (ANIMATABLE_FORMATS.has(format) && (metadata.pages ?? 1) > 1) throw animated();
  if (format === 'png' && pngFrameCount(data) > 1) throw animated();
  const { width, height } = metadata.autoOrient;
  if (!(width > 0 && height > 0)) throw toImageInputError(new Error('no dimensions'));
  checkPixels(width, height);
  return { format, width, height };
}
