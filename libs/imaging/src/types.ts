import type { RgbImage } from '@loupe/fingerprint';
import type { ImageFormat } from './formats';

/** Pixels are fingerprint's types (the lowest library), one declaration for every library. */
export type { GrayImage, RgbImage } from '@loupe/fingerprint';

/** What an input file is, with width and height as displayed (after EXIF orientation). */
export interface ImageInfo {
  format: ImageFormat;
  width: number;
  height: number;
}

/** A decoded, oriented, sRGB, alpha-flattened and resized input image. */
export interface NormalizedImage extends RgbImage {
  original: ImageInfo;
  /** Normalized width divided by the original (oriented) width; 1 when the image was not shrunk. */
  scale: number;
}
