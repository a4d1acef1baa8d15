import { oklabDistance, srgbToOklab, type Oklab } from './oklab';
import type { RgbImage } from './types';

/**
 * A pixel belongs to the background color when within this ΔE_OK of it. 10 absorbs JPEG noise and the gentle
 * shading of a photographed backdrop (white to #eeeeee is ΔE 6) while keeping pale object colors apart
 * (white to light pink #ffc0cb is ΔE 15, to cream #fff3a0 ΔE 11).
 */
export const BACKGROUND_DELTA_E = 10;

/**
 * The border color counts as a background only when at least this share of border pixels has it: a real backdrop
 * wraps most of the frame, while a photo cut by its frame has several colors on its border and no background.
 */
export const BORDER_DOMINANCE_MIN = 0.5;

/** Bits per channel used to find the modal border color; 4 bits (16 levels) keeps noisy backdrops in one bin. */
const MODE_BIN_BITS = 4;

/**
 * Mask (1 = background) of the region connected to the image border whose color dominates the border; with
 * interior, also every other region of that same color (e.g. the hole of a ring). All zeros when no single
 * color dominates the border.
 */
export function detectBackground(img: RgbImage, opts: { interior: boolean }): Uint8Array {
  const { width, height } = img;
  const mask = new Uint8Array(width * height);
  if (width === 0 || height === 0) return mask;
  const border = borderIndices(width, height);
  const reference = dominantColor(img, border);
  if (!reference) return mask;
  const matches = matchingPixels(img, reference);
  if (opts.interior) return matches;
  floodFill(mask, border.filter((p) => matches[p] === 1), width, height, (p) => matches[p] === 1);
  return mask;
}

/**
 * Bits per channel of the lookup that decides "is this the background color" once per color cell instead of once
 * per pixel. At 6 bits a cell spans 4 levels: a pixel is within ΔE_OK 1.7 of its cell centre once any channel
 * reaches 32, small beside BACKGROUND_DELTA_E (only near-black cells, where OKLab lightness is steepest, reach
 * ΔE 8), and a 600×400 photo touches a few thousand cells instead of 240 000 pixels.
 */
const MATCH_CELL_BITS = 6;

/** 1 where a pixel is within BACKGROUND_DELTA_E of reference (judged at the centre of its color cell). */
function matchingPixels(img: RgbImage, reference: Oklab): Uint8Array {
  const shift = 8 - MATCH_CELL_BITS;
  const half = 1 << (shift - 1);
  const cellVerdict = new Int8Array(1 << (3 * MATCH_CELL_BITS)).fill(-1);
  const n = img.width * img.height;
  const matches = new Uint8Array(n);
  const d = img.data;
  for (let p = 0; p < n; p++) {
    const r = d[3 * p] >> shift;
    const g = d[3 * p + 1] >> shift;
    const b = d[3 * p + 2] >> shift;
    const cell = (r << (2 * MATCH_CELL_BITS)) | (g << MATCH_CELL_BITS) | b;
    let verdict = cellVerdict[cell];
    if (verdict < 0) {
      const lab = srgbToOklab((r << shift) + half, (g << shift) + half, (b << shift) + half);
      verdict = oklabDistance(lab, reference) <= BACKGROUND_DELTA_E ? 1 : 0;
      cellVerdict[cell] = verdict;
    }
    matches[p] = verdict;
  }
  return matches;
}

function pixelLab(img: RgbImage, p: number): Oklab {
  return srgbToOklab(img.data[3 * p], img.data[3 * p + 1], img.data[3 * p + 2]);
}

function borderIndices(width: number, height: number): number[] {
  const out = new Set<number>();
  for (let x = 0; x < width; x++) {
    out.add(x);
    out.add((height - 1) * width + x);
  }
  for (let y = 0; y < height; y++) {
    out.add(y * width);
    out.add(y * width + width - 1);
  }
  return [...out];
}

/** The border's modal color refined to the mean of the border pixels near it, if it covers enough of the border. */
function dominantColor(img: RgbImage, border: readonly number[]): Oklab | undefined {
  const labs = new Map(border.map((p) => [p, pixelLab(img, p)]));
  const near = (p: number, ref: Oklab) => oklabDistance(labs.get(p)!, ref) <= BACKGROUND_DELTA_E;
  const shift = 8 - MODE_BIN_BITS;
  const bins = new Map<number, number[]>();
  for (const p of border) {
    const d = img.data;
    const key = ((d[3 * p] >> shift) << (2 * MODE_BIN_BITS)) | ((d[3 * p + 1] >> shift) << MODE_BIN_BITS) | (d[3 * p + 2] >> shift);
    const members = bins.get(key);
    if (members) members.push(p);
    else bins.set(key, [p]);
  }
  let modal: number[] = [];
  for (const members of bins.values()) if (members.length > modal.length) modal = members;
  const modalMean = meanLab(modal.map((p) => labs.get(p)!));
  const reference = meanLab(border.filter((p) => near(p, modalMean)).map((p) => labs.get(p)!));
  const share = border.filter((p) => near(p, reference)).length / border.length;
  return share >= BORDER_DOMINANCE_MIN ? reference : undefined;
}

function meanLab(labs: readonly Oklab[]): Oklab {
  let L = 0;
  let a = 0;
  let b = 0;
  for (const lab of labs) {
    L += lab[0];
    a += lab[1];
    b += lab[2];
  }
  const n = Math.max(1, labs.length);
  return [L / n, a / n, b / n];
}

/** 4-connected flood fill from seeds over pixels accepted by inside, marking them 1 in mask. */
function floodFill(
  mask: Uint8Array,
  seeds: readonly number[],
  width: number,
  height: number,
  inside: (p: number) => boolean,
): void {
  const queue = new Int32Array(width * height);
  let head = 0;
  let tail = 0;
  for (const s of seeds) {
    if (mask[s]) continue;
    mask[s] = 1;
    queue[tail++] = s;
  }
  while (head < tail) {
    const p = queue[head++];
    const x = p % width;
    const y = (p - x) / width;
    const visit = (q: number) => {
      if (!mask[q] && inside(q)) {
        mask[q] = 1;
        queue[tail++] = q;
      }
    };
    if (x > 0) visit(p - 1);
    if (x < width - 1) visit(p + 1);
    if (y > 0) visit(p - width);
    if (y < height - 1) visit(p + width);
  }
}
