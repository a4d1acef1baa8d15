import sharp from 'sharp';
import type { Sharp } from 'sharp';
import { decodeBmp } from './bmp';
import { corrupt } from './errors';
import { probeImage } from './probe';
import { planResize } from './resize-plan';
import { SHARP_INPUT_OPTIONS, toImageInputError } from './sharp-input';
import type { ImageInfo, NormalizedImage, RgbImage } from './types';

const WHITE = { r: 255, g: 255, b: 255 };

/** A sharp pipeline over the input: BMP goes through decode-bmp, everything else straight in, oriented. */
function openInput(data: Buffer, info: ImageInfo): Sharp {
  if (info.format === 'bmp') {
    const rgba = decodeBmp(data);
    return sharp(rgba.data, { raw: { width: rgba.width, height: rgba.height, channels: 4 } });
  }
  return sharp(data, SHARP_INPUT_OPTIONS).autoOrient();
}

/**
 * Decodes to packed 8-bit sRGB with alpha flattened on white, optionally resized to exactly
 * size. CMYK and embedded ICC profiles are converted to sRGB by sharp on the way out.
 */
async function decodeRgb(data: Buffer, info: ImageInfo, size?: { width: number; height: number }): Promise<RgbImage> {
  try {
    let pipeline = openInput(data, info).toColourspace('srgb').flatten({ background: WHITE });
    if (size) pipeline = pipeline.resize(size.width, size.height, { fit: 'fill', kernel: 'lanczos3' });
    const out = await pipeline.removeAlpha().raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
    if (out.info.channels !== 3) throw corrupt();
    return {
      data: new Uint8Array(out.data.buffer, out.data.byteOffset, out.data.byteLength),
      width: out.info.width,
      height: out.info.height,
    };
  } catch (error) {
    throw toImageInputError(error, info.width * info.height);
  }
}

/**
 * Validates and decodes an input image for recognition: EXIF auto-orient, sRGB, alpha on
 * white, smallest side shrunk to preferredSide (never enlarged, long side capped).
 */
export async function normalizeImage(data: Buffer, opts: { preferredSide: number }): Promise<NormalizedImage> {
  const original = await probeImage(data);
  const plan = planResize(original.width, original.height, opts.preferredSide);
  const resized = plan.scale === 1 ? undefined : plan;
  const rgb = await decodeRgb(data, original, resized);
  return { ...rgb, original, scale: rgb.width / original.width };
}

/** Full-size oriented sRGB decode, for tools that need every pixel. */
export async function decodeToRgb(data: Buffer): Promise<RgbImage> {
  const info = await probeImage(data);
  return decodeRgb(data, info);
}
