import { estimateSkew, MIN_CORRECTED_SKEW_DEGREES, rotateGrey, unrotatePoint } from './deskew';
import { binarize, clampBox, histogram, otsuThreshold, stretchContrast, toGrey, upscale, type GreyImage } from './grey';
import type { PixelBox, RgbImage } from './types';

/** Which pre-processing steps run before tesseract. */
export interface PrepareOptions {
  stretch: boolean;
  /** Upscale x2 when the region's smaller side is below this many pixels (0: never). */
  upscaleBelow: number;
  binarize: boolean;
  deskew: boolean;
}

/**
 * Defaults chosen by measurement on the rendered labels (testing/measure-prepare.ts; word accuracy 0-100):
 * deskew took an 8° tilt from 69 to 100; Otsu took a blurred low-contrast label from 99 to 85; stretch + x2
 * took a 230 px label from 88 to 100. Hence
 * grey + stretch + deskew always; x2 below 400 px because tesseract's LSTM reads glyphs best at
 * 20-40 px cap height and a label region under 400 px usually has its small print under 10 px;
 * Otsu binarisation off, because tesseract binarises internally and a global threshold erases thin serifs
 * under uneven light.
 */
export const DEFAULT_PREPARE: PrepareOptions = { stretch: true, upscaleBelow: 400, binarize: false, deskew: true };

export interface PreparedImage {
  grey: GreyImage;
  /** Maps a box found in `grey` back to the original image's pixels. */
  toOriginal(box: PixelBox): PixelBox;
  skewDegrees: number;
  scale: number;
}

export function prepareForOcr(img: RgbImage, region: PixelBox | undefined, opts: PrepareOptions = DEFAULT_PREPARE): PreparedImage {
  const r = clampBox(region ?? { x0: 0, y0: 0, x1: img.width, y1: img.height }, img.width, img.height);
  let grey = toGrey(img, r);
  if (opts.stretch) grey = stretchContrast(grey);
  let skew = 0;
  if (opts.deskew) {
    const estimated = estimateSkew(grey);
    if (Math.abs(estimated) >= MIN_CORRECTED_SKEW_DEGREES) {
      skew = estimated;
      grey = rotateGrey(grey, skew);
    }
  }
  const rotatedWidth = grey.width;
  const rotatedHeight = grey.height;
  const scale = opts.upscaleBelow > 0 && Math.min(grey.width, grey.height) < opts.upscaleBelow ? 2 : 1;
  if (scale > 1) grey = upscale(grey, scale);
  if (opts.binarize) grey = binarize(grey, otsuThreshold(histogram(grey)));

  const toOriginal = (b: PixelBox): PixelBox => {
    const corners = [
      [b.x0 / scale, b.y0 / scale],
      [b.x1 / scale, b.y0 / scale],
      [b.x0 / scale, b.y1 / scale],
      [b.x1 / scale, b.y1 / scale],
    ].map(([x, y]) => (skew === 0 ? [x, y] : unrotatePoint(x, y, rotatedWidth, rotatedHeight, skew)));
    return clampBox(
      {
        x0: r.x0 + Math.min(...corners.map((c) => c[0])),
        y0: r.y0 + Math.min(...corners.map((c) => c[1])),
        x1: r.x0 + Math.max(...corners.map((c) => c[0])),
        y1: r.y0 + Math.max(...corners.map((c) => c[1])),
      },
      img.width,
      img.height,
    );
  };
  return { grey, toOriginal, skewDegrees: skew, scale };
}
