import { rgbToGray } from '@loupe/fingerprint';
import { estimateCylinder, unwrapCylinder, type Cylinder } from './cylinder';
import { estimateSkew, MIN_CORRECTED_SKEW_DEGREES, rotateGrey, unrotatePoint } from './deskew';
import { binarize, clampBox, histogram, otsuThreshold, stretchContrast, upscale, type GrayImage } from './grey';
import type { PixelBox, RgbImage } from './types';

/** Which pre-processing steps run before tesseract. */
export interface PrepareOptions {
  stretch: boolean;
  /** Upscale x2 when the region's smaller side is below this many pixels (0: never). */
  upscaleBelow: number;
  binarize: boolean;
  deskew: boolean;
  /**
   * Estimate the bottle's cylinder from every label's print and lay it flat when its print is squeezed at the sides
   * (cylinder.ts). Off by default: on labels wrapped 0.9-1.4 rad round the bottle (printed benchmark, 160 photos)
   * it changed 5 of 640 fields, 4 for the better, and it costs every label the estimate (prepare 20 -> 52 ms CPU);
   * the wine reader instead unwraps only labels whose first reading lacks a field (4 better, none worse).
   */
  unwrap: boolean;
}

/**
 * The print's squeeze at its far side under which the label is unwrapped: milder wraps read as well as flat labels
 * (bottle photos wrapped over 0.2-0.6 rad, squeeze 0.83 and more, read like flat ones in the printed benchmark),
 * and the estimate from the print is too noisy to trust there.
 */
export const UNWRAP_BELOW_SQUEEZE = 0.8;

/** The cylinder a label region is wrapped round, estimated from its print (null: too little print to tell). */
export function labelCylinder(img: RgbImage, region?: PixelBox): Cylinder | null {
  return estimateCylinder(stretchContrast(rgbToGray(img, region)));
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
export const DEFAULT_PREPARE: PrepareOptions = { stretch: true, upscaleBelow: 400, binarize: false, deskew: true, unwrap: false };

export interface PreparedImage {
  grey: GrayImage;
  /** Maps a box found in `grey` back to the original image's pixels. */
  toOriginal(box: PixelBox): PixelBox;
  skewDegrees: number;
  scale: number;
  /** Squeeze at the sides of the cylinder the label was unwrapped from (1: not unwrapped). */
  cylinderSqueeze: number;
}

/** `cylinder` (labelCylinder of the same region): lay the region flat from that cylinder, whatever `opts.unwrap`. */
export function prepareForOcr(img: RgbImage, region: PixelBox | undefined, opts: PrepareOptions = DEFAULT_PREPARE, cylinder?: Cylinder | null): PreparedImage {
  const r = clampBox(region ?? { x0: 0, y0: 0, x1: img.width, y1: img.height }, img.width, img.height);
  let grey = rgbToGray(img, r);
  if (opts.stretch) grey = stretchContrast(grey);
  let unwrappedToSourceX = (x: number) => x;
  let cylinderSqueeze = 1;
  const wrapped = cylinder ?? (opts.unwrap ? estimateCylinder(grey) : null);
  if (wrapped && (cylinder || wrapped.edgeSqueeze < UNWRAP_BELOW_SQUEEZE)) {
    const unwrapped = unwrapCylinder(grey, wrapped);
    grey = unwrapped.image;
    unwrappedToSourceX = unwrapped.toSourceX;
    cylinderSqueeze = wrapped.edgeSqueeze;
  }
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
    ]
      .map(([x, y]) => (skew === 0 ? [x, y] : unrotatePoint(x, y, rotatedWidth, rotatedHeight, skew)))
      .map(([x, y]) => [unwrappedToSourceX(x), y]);
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
  return { grey, toOriginal, skewDegrees: skew, scale, cylinderSqueeze };
}
