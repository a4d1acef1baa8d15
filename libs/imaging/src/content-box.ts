import type { PixelBox } from '@loupe/fingerprint';
import type { RgbImage } from './types';

/** Pixel bounds of an image's content; right and bottom are exclusive. */
export type BorderBox = PixelBox;

/**
 * Largest difference (levels, any channel) between a pixel and its line's mean color that
 * still counts as the same color. JPEG at q75 keeps flat areas within ~4 levels; 24 also
 * absorbs scanner noise and mild chroma subsampling bleed.
 */
const PIXEL_TOLERANCE = 24;

/**
 * Share of a line allowed to differ (dust, a stray mark, JPEG ringing at a corner) while
 * the line still counts as one color.
 */
const LINE_OUTLIER_FRACTION = 0.02;

/**
 * Largest drift (levels, any channel) of line colors within one border run. A painted border is one color; line
 * means average JPEG noise out, so a tight bound still holds for it, while a smooth gradient (a sky, a wallpaper)
 * whose rows are each uniform but drift row to row stops counting as a border after a few rows.
 */
const RUN_COLOR_TOLERANCE = 10;

/**
 * Largest share of the width or height one side's borders may take. Frames and mats added around a picture stay well
 * under it; beyond it the "border" is a flat or smoothly shaded part of the picture itself (a sky, a plain wallpaper),
 * and cropping it would throw away what the image is recognised by.
 */
const MAX_BORDER_SHARE = 0.25;

/**
 * Nested borders removed per side: a frame, a mat and a thin inner line cover scanned
 * labels and framed pictures; more runs than that are more likely bands in the content.
 */
const MAX_BORDER_RUNS = 3;

/**
 * If peeling leaves less than this on a side, the "borders" were the whole image (a flat
 * or striped picture) and nothing is cropped.
 */
const MIN_CONTENT_SIDE = 8;

type Side = 'top' | 'bottom' | 'left' | 'right';
type Rgb = [number, number, number];

/** Mean color of a row (horizontal) or column segment, or null when it is not one color. */
function uniformLineColor(img: RgbImage, horizontal: boolean, index: number, from: number, to: number): Rgb | null {
  const length = to - from;
  const step = horizontal ? 3 : img.width * 3;
  const start = horizontal ? (index * img.width + from) * 3 : (from * img.width + index) * 3;
  const d = img.data;
  let r = 0;
  let g = 0;
  let b = 0;
  for (let i = 0, p = start; i < length; i++, p += step) {
    r += d[p];
    g += d[p + 1];
    b += d[p + 2];
  }
  const mean: Rgb = [r / length, g / length, b / length];
  const allowed = Math.floor(length * LINE_OUTLIER_FRACTION);
  let outliers = 0;
  for (let i = 0, p = start; i < length; i++, p += step) {
    const diff = Math.max(Math.abs(d[p] - mean[0]), Math.abs(d[p + 1] - mean[1]), Math.abs(d[p + 2] - mean[2]));
    if (diff > PIXEL_TOLERANCE && ++outliers > allowed) return null;
  }
  return mean;
}

const sameColor = (a: Rgb, b: Rgb): boolean =>
  Math.max(Math.abs(a[0] - b[0]), Math.abs(a[1] - b[1]), Math.abs(a[2] - b[2])) <= RUN_COLOR_TOLERANCE;

/** The line at the current edge of a side, inside the box's span along the other axis. */
function edgeLine(img: RgbImage, box: BorderBox, side: Side): Rgb | null {
  switch (side) {
    case 'top':
      return uniformLineColor(img, true, box.top, box.left, box.right);
    case 'bottom':
      return uniformLineColor(img, true, box.bottom - 1, box.left, box.right);
    case 'left':
      return uniformLineColor(img, false, box.left, box.top, box.bottom);
    case 'right':
      return uniformLineColor(img, false, box.right - 1, box.top, box.bottom);
  }
}

const remaining = (box: BorderBox, side: Side): number =>
  side === 'top' || side === 'bottom' ? box.bottom - box.top : box.right - box.left;

function shrink(box: BorderBox, side: Side): void {
  if (side === 'top') box.top++;
  else if (side === 'bottom') box.bottom--;
  else if (side === 'left') box.left++;
  else box.right--;
}

/**
 * Largest drift (levels, any channel) between a run's first line and its middle line. A painted border is flat (line
 * means vary by a level or two under JPEG); a gradient whose rows are each uniform drifts steadily, so halfway through
 * the run it has moved about half of RUN_COLOR_TOLERANCE. Comparing with the middle, not the last line, keeps the
 * blurred transition lines that JPEG leaves at a border's inner edge from counting.
 */
const RUN_FLATNESS = 3;

/**
 * Lines at the inner edge of a run that may drift from its colour and still be taken with it: a border's edge blurred by
 * resizing and JPEG. A longer drift is the start of a gradient, which stays.
 */
const EDGE_BLUR_LINES = 2;

/**
 * Removes one run of same-colored uniform lines from a side; returns whether anything was removed. With `endAtDrift`, a
 * flat band that runs into a gradient ends where its lines start to drift (within RUN_FLATNESS of the band), not where
 * they have drifted RUN_COLOR_TOLERANCE, which takes a gradient's first lines with it.
 */
function peelRun(img: RgbImage, box: BorderBox, side: Side, endAtDrift: boolean): boolean {
  if (remaining(box, side) <= 1) return false;
  const runColor = edgeLine(img, box, side);
  if (runColor === null) return false;
  const before = { ...box };
  const lines: Rgb[] = [runColor];
  shrink(box, side);
  while (remaining(box, side) > 1) {
    const color = edgeLine(img, box, side);
    if (color === null || !sameColor(color, runColor)) break;
    lines.push(color);
    shrink(box, side);
  }
  // Shading, not a border: leave the side as it was.
  if (differsBy(lines[Math.floor(lines.length / 2)], runColor, RUN_FLATNESS)) {
    Object.assign(box, before);
    return false;
  }
  if (endAtDrift) {
    let flatLines = lines.length;
    while (differsBy(lines[flatLines - 1], runColor, RUN_FLATNESS)) flatLines--;
    if (lines.length - flatLines > EDGE_BLUR_LINES) {
      Object.assign(box, before);
      for (let i = 0; i < flatLines; i++) shrink(box, side);
    }
  }
  return true;
}

const differsBy = (a: Rgb, b: Rgb, step: number): boolean =>
  Math.max(Math.abs(a[0] - b[0]), Math.abs(a[1] - b[1]), Math.abs(a[2] - b[2])) > step;

/**
 * Bounds of the content inside solid-color borders (docs/protocol.md §8: rectangles refer to
 * the image without them). Sides are peeled in rounds, one run per side per round, so
 * nested borders of different colors (a white mat inside a black frame) come off in turn.
 * Never returns an empty box: an image that is all "border" is returned whole.
 */
export function findContentBox(img: RgbImage): BorderBox {
  return peeledBox(img, MAX_BORDER_SHARE);
}

/**
 * `findContentBox` without its limit on a side's share: flat bands of any width come off (a flat sky, a plain ground).
 * What a crop of a collection image may still hold of the bands that the image's own border cut took off: a crop of a
 * flat landscape keeps its sky, which filled a fifth of the image (cut) and fills a third of the crop (kept).
 */
export function findContentInsideFlatBands(img: RgbImage): BorderBox {
  return peeledBox(img, 1);
}

/**
 * The box left by peeling runs of uniform lines off each side, a side restored when it peeled beyond `maxBorderShare`;
 * a side's cut then ends where its last band's lines start to drift, when that is sooner. Only a cut the share allows
 * is shortened: a band that ends sooner never makes a cut the share refused (a wallpaper's margin drifting over more
 * than a quarter of its width stays whole, as every edited copy of it does).
 */
function peeledBox(img: RgbImage, maxBorderShare: number): BorderBox {
  const whole: BorderBox = { left: 0, top: 0, right: img.width, bottom: img.height };
  const box = peelSides(img, false);
  if (box.top > img.height * maxBorderShare) box.top = 0;
  if (img.height - box.bottom > img.height * maxBorderShare) box.bottom = img.height;
  if (box.left > img.width * maxBorderShare) box.left = 0;
  if (img.width - box.right > img.width * maxBorderShare) box.right = img.width;
  const toBandsEnd = peelSides(img, true);
  box.top = Math.min(box.top, toBandsEnd.top);
  box.bottom = Math.max(box.bottom, toBandsEnd.bottom);
  box.left = Math.min(box.left, toBandsEnd.left);
  box.right = Math.max(box.right, toBandsEnd.right);
  if (box.right - box.left < MIN_CONTENT_SIDE || box.bottom - box.top < MIN_CONTENT_SIDE) return whole;
  return box;
}

/** Peels sides in rounds, one run per side per round, so nested borders of different colors come off in turn. */
function peelSides(img: RgbImage, endAtDrift: boolean): BorderBox {
  const box: BorderBox = { left: 0, top: 0, right: img.width, bottom: img.height };
  const sides: Side[] = ['top', 'bottom', 'left', 'right'];
  for (let round = 0; round < MAX_BORDER_RUNS; round++) {
    let peeled = false;
    for (const side of sides) peeled = peelRun(img, box, side, endAtDrift) || peeled;
    if (!peeled) break;
  }
  return box;
}
