import type { ImageFormat } from './formats';

/** What an input file is, with width and height as displayed (after EXIF orientation). */
export interface ImageInfo {
  format: ImageFormat;
  width: number;
  height: number;
}

/** Packed 8-bit RGB pixels, row-major, 3 bytes per pixel, no padding. */
export interface RgbImage {
  data: Uint8Array;
  width: number;
  height: number;
}

/** 8-bit single-channel pixels, row-major, no padding. */
export interface GrayImage {
  data: Uint8Array;
  width: number;
  height: number;
}

/** A decoded, oriented, sRGB, alpha-flattened and resized input image. */
export interface NormalizedImage extends RgbImage {
  original: ImageInfo;
  /** Normalized width divided by the original (oriented) width; 1 when the image was not shrunk. */
  scale: number;
}
