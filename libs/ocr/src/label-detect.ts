import { rgbToGray } from '@loupe/fingerprint';
import { boxBlur3, brightGrid, closeMask, components, holeCount, type BlockGrid, type Component } from './block-grid';
import { clampBox, histogram, otsuThreshold, type GrayImage } from './grey';
import type { PixelBox, RgbImage } from './types';

/** About 100 blocks across the smaller side: a label line of text spans several blocks, noise averages out. */
const BLOCKS_ACROSS = 100;
const MIN_BLOCK_SIZE = 4;
/** A block belongs to paper when most of it is bright; text strokes cover well under half of a block. */
const PAPER_BLOCK_BRIGHT = 0.5;
/** A block shows ink on paper (local contrast) when it is mostly paper but has at least this much dark. */
const INK_BLOCK_DARK = 0.04;
/** Labels are rectangles: the component with its holes (text) filled must cover most of its box. */
const MIN_RECTANGULARITY = 0.75;
/** A label without text is a blank patch of wall or a reflection: require this share of inked blocks. */
const MIN_INK_SHARE = 0.08;
/** Smaller than this share of the image, it is a sticker or glare rather than the label. */
const MIN_AREA_SHARE = 0.02;
/** A region spanning nearly the whole frame is the background (or a label photographed flat: no crop needed). */
const MAX_SIDE_SHARE = 0.97;
/** Edge refinement: a pixel row/column is inside the label while this share of it is bright. */
const EDGE_ROW_BRIGHT = 0.5;

interface Candidate {
  comp: Component;
  score: number;
}

function scoreComponent(comp: Component, grid: BlockGrid, mask: Uint8Array, imgBlocks: number): number {
  const boxW = comp.x1 - comp.x0;
  const boxH = comp.y1 - comp.y0;
  const boxArea = boxW * boxH;
  if (boxArea < imgBlocks * MIN_AREA_SHARE) return 0;
  if (boxW >= grid.cols * MAX_SIDE_SHARE && boxH >= grid.rows * MAX_SIDE_SHARE) return 0;
  const filled = comp.cells.length + holeCount(comp, grid.cols);
  const rectangularity = filled / boxArea;
  if (rectangularity < MIN_RECTANGULARITY) return 0;
  let inked = 0;
  for (let y = comp.y0; y < comp.y1; y++) {
    for (let x = comp.x0; x < comp.x1; x++) {
      const i = y * grid.cols + x;
      const b = grid.bright[i];
      if (mask[i] && b <= 1 - INK_BLOCK_DARK) inked++;
      else if (!mask[i] && b > 0) inked++;
    }
  }
  const inkShare = inked / boxArea;
  if (inkShare < MIN_INK_SHARE) return 0;
  return filled * rectangularity;
}

function bestComponent(blurred: GrayImage, threshold: number, blockSize: number): Candidate | null {
  const grid = brightGrid(blurred, threshold, blockSize);
  const raw = new Uint8Array(grid.bright.length);
  for (let i = 0; i < raw.length; i++) raw[i] = grid.bright[i] >= PAPER_BLOCK_BRIGHT ? 1 : 0;
  const mask = closeMask(raw, grid.cols, grid.rows);
  let best: Candidate | null = null;
  for (const comp of components(mask, grid.cols, grid.rows)) {
    const score = scoreComponent(comp, grid, mask, grid.cols * grid.rows);
    if (score > 0 && (!best || score > best.score)) best = { comp, score };
  }
  return best;
}

function brightShare(g: GrayImage, threshold: number, x0: number, y0: number, x1: number, y1: number): number {
  let n = 0;
  let bright = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      n++;
      if (g.data[y * g.width + x] > threshold) bright++;
    }
  }
  return n > 0 ? bright / n : 0;
}

/** Moves each side of the block box to the outermost bright pixel row/column within one block of it. */
function refineEdges(g: GrayImage, threshold: number, box: PixelBox, reach: number): PixelBox {
  const r = { ...box };
  const inside = (x0: number, y0: number, x1: number, y1: number) => brightShare(g, threshold, x0, y0, x1, y1) >= EDGE_ROW_BRIGHT;
  const lo = (v: number, max: number) => Math.max(0, Math.min(max, v));
  let y = lo(box.y0 - reach, g.height);
  while (y < box.y0 + reach && !inside(r.x0, y, r.x1, y + 1)) y++;
  r.y0 = y;
  y = lo(box.y1 + reach, g.height);
  while (y > box.y1 - reach && !inside(r.x0, y - 1, r.x1, y)) y--;
  r.y1 = y;
  let x = lo(box.x0 - reach, g.width);
  while (x < box.x0 + reach && !inside(x, r.y0, x + 1, r.y1)) x++;
  r.x0 = x;
  x = lo(box.x1 + reach, g.width);
  while (x > box.x1 - reach && !inside(x - 1, r.y0, x, r.y1)) x--;
  r.x1 = x;
  return r.x1 > r.x0 && r.y1 > r.y0 ? r : box;
}

/**
 * The label on a bottle photo: the largest bright, rectangular region holding ink (text), found on a block grid.
 * Brightness is split by Otsu's threshold, and again by Otsu within the bright class, because a mid-grey
 * background can land on the bright side of the first split and merge with the label. Null when nothing
 * label-like stands out (e.g. the photo is the label itself, edge to edge).
 */
export function detectLabel(img: RgbImage): PixelBox | null {
  if (img.width < 2 || img.height < 2) return null;
  const blurred = boxBlur3(rgbToGray(img));
  const blockSize = Math.max(MIN_BLOCK_SIZE, Math.round(Math.min(img.width, img.height) / BLOCKS_ACROSS));
  const hist = histogram(blurred);
  const first = otsuThreshold(hist);
  const upper = new Uint32Array(256);
  for (let i = first + 1; i < 256; i++) upper[i] = hist[i];
  const thresholds = [first, otsuThreshold(upper)];
  let best: (Candidate & { threshold: number }) | null = null;
  for (const threshold of thresholds) {
    const c = bestComponent(blurred, threshold, blockSize);
    if (c && (!best || c.score > best.score)) best = { ...c, threshold };
  }
  if (!best) return null;
  const { comp, threshold } = best;
  const box = {
    x0: comp.x0 * blockSize,
    y0: comp.y0 * blockSize,
    x1: Math.min(img.width, comp.x1 * blockSize),
    y1: Math.min(img.height, comp.y1 * blockSize),
  };
  return refineEdges(blurred, threshold, box, blockSize);
}

/** A row or column belongs to the label while this share of its sampled pixels is the stock's colour. */
const STOCK_LINE_SHARE = 0.5;
/**
 * Brightness tolerance: a quarter-turn of a bottle darkens the label's sides to ~0.7 of the front's light. The
 * floor covers JPEG noise on dark stock without taking a black bottle or backdrop for a navy label.
 */
const STOCK_LUMA_TOLERANCE_SHARE = 0.35;
const STOCK_LUMA_TOLERANCE_MIN = 16;
/**
 * Hue tolerance, on the differences r-g and g-b: JPEG, shading and glare shift them by under ~12, a dark bottle
 * or backdrop next to a dark label of another hue by 30 and more.
 */
const STOCK_CHROMA_TOLERANCE = 20;
/** Printed rules and borders are crossed: growth stops only after this many foreign rows (share of the side). */
const STOCK_GAP_SHARE = 0.015;
const STOCK_GAP_MIN = 3;

interface Rgb {
  r: number;
  g: number;
  b: number;
}

function medianColour(img: RgbImage, box: PixelBox): Rgb {
  const hist = [new Uint32Array(256), new Uint32Array(256), new Uint32Array(256)];
  let n = 0;
  const step = Math.max(1, Math.floor(Math.sqrt(((box.x1 - box.x0) * (box.y1 - box.y0)) / 20000)));
  for (let y = box.y0; y < box.y1; y += step) {
    for (let x = box.x0; x < box.x1; x += step) {
      const i = (y * img.width + x) * 3;
      hist[0][img.data[i]]++;
      hist[1][img.data[i + 1]]++;
      hist[2][img.data[i + 2]]++;
      n++;
    }
  }
  const median = (h: Uint32Array) => {
    let acc = 0;
    for (let v = 0; v < 256; v++) if ((acc += h[v]) * 2 >= n) return v;
    return 255;
  };
  return { r: median(hist[0]), g: median(hist[1]), b: median(hist[2]) };
}

/**
 * The label round a block of text, for labels detectLabel cannot single out (light ink on dark stock, a label
 * photographed flat and filling the frame): the text box grown side by side while the rows and columns beyond it
 * are the stock's colour (the median colour under the text, print being the minority there), crossing printed
 * borders and rules, stopping at the bottle or the backdrop.
 */
export function labelAroundText(img: RgbImage, text: PixelBox): PixelBox {
  const box = clampBox(text, img.width, img.height);
  if (box.x1 <= box.x0 || box.y1 <= box.y0) return box;
  const stock = medianColour(img, box);
  const luma = (c: Rgb) => (c.r * 77 + c.g * 150 + c.b * 29) >> 8;
  const stockLuma = luma(stock);
  const lumaTolerance = Math.max(STOCK_LUMA_TOLERANCE_MIN, STOCK_LUMA_TOLERANCE_SHARE * stockLuma);
  const isStock = (i: number): boolean => {
    const r = img.data[i];
    const g = img.data[i + 1];
    const b = img.data[i + 2];
    if (Math.abs(((r * 77 + g * 150 + b * 29) >> 8) - stockLuma) > lumaTolerance) return false;
    return Math.abs(r - g - (stock.r - stock.g)) + Math.abs(g - b - (stock.g - stock.b)) <= STOCK_CHROMA_TOLERANCE;
  };
  const rowIsStock = (y: number, x0: number, x1: number): boolean => {
    let n = 0;
    let s = 0;
    for (let x = x0; x < x1; x += 2, n++) if (isStock((y * img.width + x) * 3)) s++;
    return n > 0 && s >= STOCK_LINE_SHARE * n;
  };
  const columnIsStock = (x: number, y0: number, y1: number): boolean => {
    let n = 0;
    let s = 0;
    for (let y = y0; y < y1; y += 2, n++) if (isStock((y * img.width + x) * 3)) s++;
    return n > 0 && s >= STOCK_LINE_SHARE * n;
  };
  /** Last stock line reached from `from` stepping by `dir`, crossing runs of foreign lines shorter than the gap. */
  const grow = (from: number, dir: 1 | -1, limit: number, stockAt: (v: number) => boolean, gap: number): number => {
    let edge = from;
    let foreign = 0;
    for (let v = from + dir; dir > 0 ? v < limit : v >= 0; v += dir) {
      if (stockAt(v)) {
        edge = v;
        foreign = 0;
      } else if (++foreign > gap) break;
    }
    return edge;
  };
  const gapY = Math.max(STOCK_GAP_MIN, Math.round(STOCK_GAP_SHARE * img.height));
  const gapX = Math.max(STOCK_GAP_MIN, Math.round(STOCK_GAP_SHARE * img.width));
  const r = { ...box };
  // Two rounds: rows are judged over the columns found so far, columns over the rows, so both settle on the label.
  for (let round = 0; round < 2; round++) {
    r.y0 = grow(r.y0, -1, img.height, (y) => rowIsStock(y, r.x0, r.x1), gapY);
    r.y1 = grow(r.y1 - 1, 1, img.height, (y) => rowIsStock(y, r.x0, r.x1), gapY) + 1;
    r.x0 = grow(r.x0, -1, img.width, (x) => columnIsStock(x, r.y0, r.y1), gapX);
    r.x1 = grow(r.x1 - 1, 1, img.width, (x) => columnIsStock(x, r.y0, r.y1), gapX) + 1;
  }
  return r;
}
