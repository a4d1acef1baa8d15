import { components } from './block-grid';
import { boxArea, intersectionArea } from './box';
import type { GrayImage } from './grey';
import type { TextBand } from './text-bands';
import type { PixelBox } from './types';

/**
 * Lines of print anywhere in a picture (a badge's name on its ribbon, a logo's tagline), found by their glyphs: blobs
 * darker or lighter than their surroundings, of one height, side by side. Tesseract's page layout and `findTextBands`
 * (rows of ink across a label) both miss a word on a coloured shape inside a graphic: tesseract takes the shape round it
 * for a picture, and every row through the shape is "ink" to a row profile. Each line found here can be read alone as
 * a single line.
 */

/** Glyphs are told from their surroundings by the mean of a window this share of the image's shorter side. */
const WINDOW_SHARE = 1 / 10;
/** Grey levels a pixel must differ from its window's mean to be ink (of either polarity). */
const INK_CONTRAST = 16;
/** Least and greatest glyph height (px, and as a share of the image's shorter side). */
const MIN_GLYPH_HEIGHT = 8;
const MAX_GLYPH_HEIGHT_SHARE = 0.25;
/** A glyph is at most this much wider than high (a bold W, or two bold letters touching) and fills this share of its box. */
const MAX_GLYPH_ASPECT = 2.5;
const MIN_GLYPH_FILL = 0.12;
const MAX_GLYPH_FILL = 0.95;
/** Neighbouring glyphs of a line: heights within this ratio, their gap under this share of the taller's height. */
const MAX_HEIGHT_RATIO = 1.6;
const MAX_GAP_SHARE = 0.9;
/** ...and vertically overlapping by at least this share of the shorter one. */
const MIN_VERTICAL_OVERLAP = 0.6;
/** Glyphs a line needs to count (three letters: fewer is a mark, not a word). */
const MIN_LINE_GLYPHS = 3;

interface Glyph {
  box: PixelBox;
  height: number;
}

/**
 * Lines of print found in a grey image, tallest first, as bands (`bandMosaic` reads them); boxes are tight round their
 * glyphs. The counters of bold letters (the holes of O, R, G) are blobs of the other polarity and can chain into a line
 * of their own inside the word's: a line lying mostly inside a taller one is left out.
 */
export function findTextLines(g: GrayImage): TextBand[] {
  const means = windowMeans(g, Math.max(3, Math.round(Math.min(g.width, g.height) * WINDOW_SHARE)));
  const lines: TextBand[] = [];
  for (const lightInk of [false, true]) {
    const ink = new Uint8Array(g.width * g.height);
    const sign = lightInk ? 1 : -1;
    for (let i = 0; i < ink.length; i++) ink[i] = sign * (g.data[i] - means[i]) > INK_CONTRAST ? 1 : 0;
    for (const box of linesOf(glyphs(ink, g.width, g.height))) lines.push({ box, lightInk });
  }
  lines.sort((a, b) => height(b.box) - height(a.box) || a.box.y0 - b.box.y0);
  return lines.filter((line, i) => !lines.slice(0, i).some((taller) => insideShare(line.box, taller.box) > NESTED_SHARE));
}

/** Share of a line's box inside a taller line's past which it is that line's counters, not a line of its own. */
const NESTED_SHARE = 0.5;

function height(box: PixelBox): number {
  return box.y1 - box.y0;
}

/** Share of `inner`'s area that lies inside `outer`. */
function insideShare(inner: PixelBox, outer: PixelBox): number {
  return intersectionArea(inner, outer) / boxArea(inner);
}

/** Mean grey of the (2r+1)² window round each pixel, clipped at the borders (an integral image). */
function windowMeans(g: GrayImage, r: number): Float32Array {
  const { width: w, height: h } = g;
  const sums = new Float64Array((w + 1) * (h + 1));
  for (let y = 0; y < h; y++) {
    let row = 0;
    for (let x = 0; x < w; x++) {
      row += g.data[y * w + x];
      sums[(y + 1) * (w + 1) + x + 1] = sums[y * (w + 1) + x + 1] + row;
    }
  }
  const means = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    const y0 = Math.max(0, y - r), y1 = Math.min(h, y + r + 1);
    for (let x = 0; x < w; x++) {
      const x0 = Math.max(0, x - r), x1 = Math.min(w, x + r + 1);
      const sum = sums[y1 * (w + 1) + x1] - sums[y0 * (w + 1) + x1] - sums[y1 * (w + 1) + x0] + sums[y0 * (w + 1) + x0];
      means[y * w + x] = sum / ((x1 - x0) * (y1 - y0));
    }
  }
  return means;
}

/** The 8-connected blobs of `ink` shaped like glyphs, not touching the image's border. */
function glyphs(ink: Uint8Array, w: number, h: number): Glyph[] {
  const maxHeight = Math.min(w, h) * MAX_GLYPH_HEIGHT_SHARE;
  return components(ink, w, h, 8).flatMap(({ cells, x0, y0, x1, y1 }) => {
    const bw = x1 - x0, bh = y1 - y0;
    const fill = cells.length / (bw * bh);
    const touchesBorder = x0 === 0 || y0 === 0 || x1 === w || y1 === h;
    if (touchesBorder || bh < MIN_GLYPH_HEIGHT || bh > maxHeight || bw > bh * MAX_GLYPH_ASPECT || fill < MIN_GLYPH_FILL || fill > MAX_GLYPH_FILL) return [];
    return [{ box: { x0, y0, x1, y1 }, height: bh }];
  });
}

/** Glyphs chained left to right with their nearest fitting neighbour, chains of MIN_LINE_GLYPHS or more as boxes. */
function linesOf(found: Glyph[]): PixelBox[] {
  const sorted = [...found].sort((a, b) => a.box.x0 - b.box.x0);
  const parent = sorted.map((_, i) => i);
  const root = (i: number): number => (parent[i] === i ? i : (parent[i] = root(parent[i])));
  for (let i = 0; i < sorted.length; i++) {
    const a = sorted[i];
    let best = -1, bestGap = Infinity;
    for (let j = i + 1; j < sorted.length; j++) {
      const b = sorted[j];
      const gap = b.box.x0 - a.box.x1;
      // Sorted by their left edge, so past the widest gap any neighbour of a's height may have, none follows.
      if (gap > MAX_GAP_SHARE * MAX_HEIGHT_RATIO * a.height) break;
      if (!neighbours(a, b) || gap >= bestGap) continue;
      best = j;
      bestGap = gap;
    }
    if (best >= 0) parent[root(best)] = root(i);
  }
  const groups = new Map<number, Glyph[]>();
  sorted.forEach((glyph, i) => groups.set(root(i), [...(groups.get(root(i)) ?? []), glyph]));
  return [...groups.values()]
    .filter((members) => members.length >= MIN_LINE_GLYPHS)
    .map((members) => ({
      x0: Math.min(...members.map((m) => m.box.x0)),
      y0: Math.min(...members.map((m) => m.box.y0)),
      x1: Math.max(...members.map((m) => m.box.x1)),
      y1: Math.max(...members.map((m) => m.box.y1)),
    }));
}

function neighbours(a: Glyph, b: Glyph): boolean {
  const ratio = Math.max(a.height, b.height) / Math.min(a.height, b.height);
  const gap = b.box.x0 - a.box.x1;
  const overlap = Math.min(a.box.y1, b.box.y1) - Math.max(a.box.y0, b.box.y0);
  return ratio <= MAX_HEIGHT_RATIO && gap <= MAX_GAP_SHARE * Math.max(a.height, b.height) && gap > -0.2 * Math.min(a.height, b.height) && overlap >= MIN_VERTICAL_OVERLAP * Math.min(a.height, b.height);
}
