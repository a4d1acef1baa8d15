import { boxBlur3, brightGrid, closeMask, components, holeCount, type BlockGrid, type Component } from './block-grid';
import { histogram, otsuThreshold, toGrey, type GreyImage } from './grey';
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

function bestComponent(blurred: GreyImage, threshold: number, blockSize: number): Candidate | null {
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

function brightShare(g: GreyImage, threshold: number, x0: number, y0: number, x1: number, y1: number): number {
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
function refineEdges(g: GreyImage, threshold: number, box: PixelBox, reach: number): PixelBox {
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
  const blurred = boxBlur3(toGrey(img));
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
