import { histogram, otsuThreshold, type GrayImage } from './grey';
import type { PixelBox } from './types';

/**
 * Text bands: the horizontal strips of a (deskewed) label that hold a line of print, found by the ink profile of
 * its rows. Tesseract's page layout drops lines far outside the glyph sizes it is trained on (a vintage printed
 * 100+ px high, a 14 px line set alone) and misreads light print on dark stock; each band can instead be read
 * alone at a comfortable size and polarity (bandMosaic).
 */
export interface TextBand {
  /** Rows y0..y1 (exclusive) and the ink's columns x0..x1, in the grey image's pixels. */
  box: PixelBox;
  /** True when the band's print is lighter than its ground (light ink on dark stock). */
  lightInk: boolean;
}

/** Columns this close to the sides are left out of the row profile: borders and the bottle's edges run there. */
const SIDE_MARGIN_SHARE = 0.06;
/** A row holds print when this share of its (inner) pixels is ink; lower is paper grain and JPEG noise. */
const ROW_INK_SHARE = 0.004;
/** Labels leave more than this share of their rows free of print: the quietest rows show the ink floor. */
const FLOOR_PERCENTILE = 0.2;
/** Rows of print closer than this share of the band's height belong to one line (i dots, accents, descenders). */
const GAP_SHARE = 0.12;
/** Bands lower than this are rules and specks; tesseract reads nothing there. */
export const MIN_BAND_HEIGHT = 8;
/** A band filled more than this is a bar or a rule, not print (small bold figures fill up to ~0.6 of their box). */
const MAX_BAND_FILL = 0.85;
/**
 * A band taller than this share of the image is not a line of print: a picture, a bottle's shadow, the stock
 * itself when the polarity is wrong. Labels print their largest line (the vintage) at up to about a quarter.
 */
const MAX_BAND_HEIGHT_SHARE = 0.3;

/** Words of a line are closer than this share of its height; a border or a bottle's edge stands further off. */
const WORD_GAP_SHARE = 1;
/** Column runs with less ink than this share of the line's richest run are a border or a speck, not words. */
const MIN_RUN_INK_SHARE = 0.15;

/** The columns a band's print spans: its runs of inked columns, leaving out thin ones standing apart. */
function inkSpan(ink: Uint8Array, width: number, y0: number, y1: number, xa: number, xb: number): { x0: number; x1: number; filled: number } | null {
  const colInk = new Uint32Array(xb - xa);
  for (let y = y0; y < y1; y++) for (let x = xa; x < xb; x++) colInk[x - xa] += ink[y * width + x];
  const maxGap = Math.max(2, WORD_GAP_SHARE * (y1 - y0));
  const runs: Array<{ x0: number; x1: number; ink: number }> = [];
  let gap = Infinity;
  for (let i = 0; i < colInk.length; i++) {
    if (colInk[i] === 0) {
      gap++;
      continue;
    }
    const last = runs[runs.length - 1];
    if (last && gap <= maxGap) {
      last.x1 = xa + i + 1;
      last.ink += colInk[i];
    } else runs.push({ x0: xa + i, x1: xa + i + 1, ink: colInk[i] });
    gap = 0;
  }
  if (runs.length === 0) return null;
  const richest = Math.max(...runs.map((r) => r.ink));
  const kept = runs.filter((r) => r.ink >= MIN_RUN_INK_SHARE * richest);
  return { x0: Math.min(...kept.map((r) => r.x0)), x1: Math.max(...kept.map((r) => r.x1)), filled: kept.reduce((s, r) => s + r.ink, 0) };
}

/**
 * Bands of print, top to bottom. `columns` narrows the search to where the print is known to be (the first
 * reading's lines): beside a dark label on a bottle, the light wall would otherwise count as ink.
 */
export function findTextBands(g: GrayImage, columns?: { x0: number; x1: number }): TextBand[] {
  if (g.width < 4 || g.height < MIN_BAND_HEIGHT) return [];
  // Ink is the minority side of Otsu's split: on light stock the dark pixels, on dark stock the light ones. One
  // polarity for the whole label: deciding it strip by strip made bands of nothing where a strip's majority flipped.
  const threshold = otsuThreshold(histogram(g));
  let bright = 0;
  for (let i = 0; i < g.data.length; i++) if (g.data[i] > threshold) bright++;
  const lightInk = bright * 2 < g.data.length;
  const ink = new Uint8Array(g.width * g.height);
  for (let i = 0; i < ink.length; i++) ink[i] = (lightInk ? g.data[i] > threshold : g.data[i] <= threshold) ? 1 : 0;
  const margin = Math.floor(g.width * SIDE_MARGIN_SHARE);
  const xa = Math.max(margin, Math.floor(columns?.x0 ?? 0));
  const xb = Math.min(g.width - margin, Math.ceil(columns?.x1 ?? g.width));
  if (xb - xa < 4) return [];
  const rowInk = new Uint32Array(g.height);
  for (let y = 0; y < g.height; y++) {
    let n = 0;
    for (let x = xa; x < xb; x++) n += ink[y * g.width + x];
    rowInk[y] = n;
  }
  // Ink every row has (a slightly tilted border, the edge of the bottle) is the floor the print stands on.
  const floor = [...rowInk].sort((a, b) => a - b)[Math.floor(g.height * FLOOR_PERCENTILE)];
  const minInk = floor + Math.max(1, (xb - xa) * ROW_INK_SHARE);
  const runs: Array<[number, number]> = [];
  for (let y = 0; y < g.height; ) {
    if (rowInk[y] < minInk) {
      y++;
      continue;
    }
    const start = y;
    while (y < g.height && rowInk[y] >= minInk) y++;
    runs.push([start, y]);
  }
  // Join runs split by small gaps (the dot of an i, an accent) in proportion to the print's height.
  const merged: Array<[number, number]> = [];
  for (const run of runs) {
    const last = merged[merged.length - 1];
    if (last && run[0] - last[1] <= Math.max(2, GAP_SHARE * Math.min(last[1] - last[0], run[1] - run[0]))) last[1] = run[1];
    else merged.push([...run]);
  }
  const bands: TextBand[] = [];
  for (const [y0, y1] of merged) {
    // Print touching the image's top or bottom is cut off there, or is the edge of the stock itself.
    if (y0 === 0 || y1 === g.height) continue;
    if (y1 - y0 < MIN_BAND_HEIGHT || y1 - y0 > MAX_BAND_HEIGHT_SHARE * g.height) continue;
    const span = inkSpan(ink, g.width, y0, y1, xa, xb);
    if (!span) continue;
    const { x0, x1, filled } = span;
    if (filled > MAX_BAND_FILL * (x1 - x0) * (y1 - y0)) continue;
    bands.push({ box: { x0, y0, x1, y1 }, lightInk });
  }
  return bands;
}

/** Band height tesseract reads best at: caps and figures of ~30-40 px, as at 10-12 pt scanned at 300 dpi. */
export const BAND_TARGET_HEIGHT = 48;
/** Ground read round a band's ink in the mosaic, as a share of the band's height. */
export const BAND_MARGIN_SHARE = 0.15;
/** White space round each band and between bands in the mosaic, as a share of the target height. */
const MOSAIC_PAD_SHARE = 0.5;

export interface BandPlacement {
  band: TextBand;
  /** Band rows/columns (with padding) in the source image. */
  source: PixelBox;
  /** Where the band sits in the mosaic. */
  top: number;
  height: number;
  scale: number;
}

export interface BandMosaic {
  image: GrayImage;
  placements: BandPlacement[];
}

/**
 * The bands, each scaled to BAND_TARGET_HEIGHT and made dark-on-light, stacked left-aligned on white: one
 * tesseract call reads every band at the size and polarity it reads best.
 */
export function bandMosaic(g: GrayImage, bands: TextBand[], targetHeight = BAND_TARGET_HEIGHT): BandMosaic {
  const pad = Math.round(targetHeight * MOSAIC_PAD_SHARE);
  const placements: BandPlacement[] = [];
  let width = 0;
  let top = pad;
  for (const band of bands) {
    const h = band.box.y1 - band.box.y0;
    const scale = targetHeight / h;
    // A little of the ground round the ink, so that glyphs touching the band's edge keep their outline.
    const margin = Math.round(h * BAND_MARGIN_SHARE);
    const source = {
      x0: Math.max(0, band.box.x0 - margin),
      y0: Math.max(0, band.box.y0 - margin),
      x1: Math.min(g.width, band.box.x1 + margin),
      y1: Math.min(g.height, band.box.y1 + margin),
    };
    const height = Math.max(1, Math.round((source.y1 - source.y0) * scale));
    placements.push({ band, source, top, height, scale });
    width = Math.max(width, Math.round((source.x1 - source.x0) * scale) + 2 * pad);
    top += height + pad;
  }
  const image: GrayImage = { data: new Uint8Array(width * top).fill(255), width, height: top };
  for (const p of placements) drawScaled(g, p, image, pad);
  return { image, placements };
}

/** Area-averaging resample of one band into the mosaic (inverted for light ink), so large print shrinks cleanly. */
function drawScaled(g: GrayImage, p: BandPlacement, out: GrayImage, left: number): void {
  const sw = p.source.x1 - p.source.x0;
  const sh = p.source.y1 - p.source.y0;
  const w = Math.max(1, Math.round(sw * p.scale));
  const h = p.height;
  for (let y = 0; y < h; y++) {
    const sy0 = p.source.y0 + (y * sh) / h;
    const sy1 = p.source.y0 + ((y + 1) * sh) / h;
    for (let x = 0; x < w; x++) {
      const sx0 = p.source.x0 + (x * sw) / w;
      const sx1 = p.source.x0 + ((x + 1) * sw) / w;
      let sum = 0;
      let n = 0;
      // Every source pixel whose centre falls in the output pixel's footprint; the nearest when none does.
      for (let yy = Math.floor(sy0); yy < Math.max(Math.floor(sy0) + 1, Math.ceil(sy1)); yy++) {
        for (let xx = Math.floor(sx0); xx < Math.max(Math.floor(sx0) + 1, Math.ceil(sx1)); xx++) {
          sum += g.data[Math.min(g.height - 1, yy) * g.width + Math.min(g.width - 1, xx)];
          n++;
        }
      }
      const v = Math.round(sum / n);
      out.data[(p.top + y) * out.width + left + x] = p.band.lightInk ? 255 - v : v;
    }
  }
}

/** Maps a box found in the mosaic back to the source image's pixels (null when it falls between bands). */
export function mosaicToSource(m: BandMosaic, box: PixelBox, targetHeight = BAND_TARGET_HEIGHT): PixelBox | null {
  const pad = Math.round(targetHeight * MOSAIC_PAD_SHARE);
  const cy = (box.y0 + box.y1) / 2;
  const p = m.placements.find((q) => cy >= q.top && cy < q.top + q.height);
  if (!p) return null;
  const map = (x: number, y: number): [number, number] => [p.source.x0 + (x - pad) / p.scale, p.source.y0 + (y - p.top) / p.scale];
  const [x0, y0] = map(box.x0, Math.max(p.top, box.y0));
  const [x1, y1] = map(box.x1, Math.min(p.top + p.height, box.y1));
  return { x0: Math.max(p.source.x0, x0), y0, x1: Math.min(p.source.x1, x1), y1 };
}
