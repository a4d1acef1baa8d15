import type { GrayImage } from './grey';

/** A coarse grid of per-block statistics over a grey image. */
export interface BlockGrid {
  cols: number;
  rows: number;
  blockSize: number;
  /** Share of pixels above the brightness threshold, per block. */
  bright: Float32Array;
}

/** Rounded ninths of every sum of nine bytes. */
const NINTHS = Uint8Array.from({ length: 9 * 255 + 1 }, (_, sum) => Math.round(sum / 9));

/** 3×3 mean: per-pixel sensor noise averages out while text strokes (≥ 2 px) survive. */
export function boxBlur3(g: GrayImage): GrayImage {
  const { width, height, data } = g;
  // Separable: row sums of 3 (2 at the sides), then columns of those; the mean divides by the pixels present.
  const rows = new Uint16Array(width * height);
  for (let y = 0; y < height; y++) {
    const o = y * width;
    for (let x = 0; x < width; x++) rows[o + x] = data[o + x] + (x > 0 ? data[o + x - 1] : 0) + (x < width - 1 ? data[o + x + 1] : 0);
  }
  const out = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const o = y * width;
    const up = y > 0 ? o - width : -1;
    const down = y < height - 1 ? o + width : -1;
    const ny = 1 + (up >= 0 ? 1 : 0) + (down >= 0 ? 1 : 0);
    const mean = (x: number): number => {
      const sum = rows[o + x] + (up >= 0 ? rows[up + x] : 0) + (down >= 0 ? rows[down + x] : 0);
      return Math.round(sum / ((1 + (x > 0 ? 1 : 0) + (x < width - 1 ? 1 : 0)) * ny));
    };
    if (ny === 3 && width > 2) {
      // Inner rows, the bulk of the work: nine pixels everywhere but at the two sides, divided by table.
      for (let x = 1; x < width - 1; x++) out[o + x] = NINTHS[rows[o + x] + rows[up + x] + rows[down + x]];
      out[o] = mean(0);
      out[o + width - 1] = mean(width - 1);
    } else {
      for (let x = 0; x < width; x++) out[o + x] = mean(x);
    }
  }
  return { data: out, width, height };
}

export function brightGrid(g: GrayImage, threshold: number, blockSize: number): BlockGrid {
  const cols = Math.ceil(g.width / blockSize);
  const rows = Math.ceil(g.height / blockSize);
  const counts = new Uint32Array(cols * rows);
  const totals = new Uint32Array(cols * rows);
  const colBlock = new Uint32Array(g.width);
  for (let x = 0; x < g.width; x++) colBlock[x] = Math.floor(x / blockSize);
  for (let y = 0; y < g.height; y++) {
    const rowBase = Math.floor(y / blockSize) * cols;
    const o = y * g.width;
    for (let x = 0; x < g.width; x++) {
      const b = rowBase + colBlock[x];
      totals[b]++;
      if (g.data[o + x] > threshold) counts[b]++;
    }
  }
  const bright = new Float32Array(cols * rows);
  for (let i = 0; i < bright.length; i++) bright[i] = totals[i] > 0 ? counts[i] / totals[i] : 0;
  return { cols, rows, blockSize, bright };
}

/** Binary closing (dilate then erode) with a 3×3 block neighbourhood. */
export function closeMask(mask: Uint8Array, cols: number, rows: number): Uint8Array {
  const morph = (src: Uint8Array, dilate: boolean): Uint8Array => {
    const out = new Uint8Array(src.length);
    for (let y = 0; y < rows; y++) {
      for (let x = 0; x < cols; x++) {
        let v = dilate ? 0 : 1;
        for (let dy = -1; dy <= 1; dy++) {
          for (let dx = -1; dx <= 1; dx++) {
            const yy = y + dy;
            const xx = x + dx;
            // Outside the image counts as background for dilation and as foreground for erosion,
            // so closing neither grows nor eats the mask at the border.
            const s = yy < 0 || yy >= rows || xx < 0 || xx >= cols ? (dilate ? 0 : 1) : src[yy * cols + xx];
            if (dilate ? s === 1 : s === 0) v = dilate ? 1 : 0;
          }
        }
        out[y * cols + x] = v;
      }
    }
    return out;
  };
  return morph(morph(mask, true), false);
}

export interface Component {
  /** Block indices (y * cols + x). */
  cells: number[];
  x0: number;
  y0: number;
  /** Exclusive. */
  x1: number;
  y1: number;
}

/**
 * Connected components of a mask (of blocks, or of pixels), 4-connected or, with `connectivity` 8, diagonal neighbours
 * joined too (a thin diagonal stroke of a glyph).
 */
export function components(mask: Uint8Array, cols: number, rows: number, connectivity: 4 | 8 = 4): Component[] {
  const label = new Int32Array(mask.length).fill(-1);
  const out: Component[] = [];
  for (let start = 0; start < mask.length; start++) {
    if (!mask[start] || label[start] >= 0) continue;
    const comp: Component = { cells: [], x0: cols, y0: rows, x1: 0, y1: 0 };
    const stack = [start];
    label[start] = out.length;
    while (stack.length > 0) {
      const i = stack.pop()!;
      comp.cells.push(i);
      const x = i % cols;
      const y = (i - x) / cols;
      comp.x0 = Math.min(comp.x0, x);
      comp.y0 = Math.min(comp.y0, y);
      comp.x1 = Math.max(comp.x1, x + 1);
      comp.y1 = Math.max(comp.y1, y + 1);
      for (let dy = -1; dy <= 1; dy++) {
        const ny = y + dy;
        if (ny < 0 || ny >= rows) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx;
          if (nx < 0 || nx >= cols || (dx === 0 && dy === 0) || (connectivity === 4 && dx !== 0 && dy !== 0)) continue;
          const j = ny * cols + nx;
          if (mask[j] && label[j] < 0) {
            label[j] = out.length;
            stack.push(j);
          }
        }
      }
    }
    out.push(comp);
  }
  return out;
}

/** Blocks inside the component's box not reachable from the box's border without crossing it: its holes. */
export function holeCount(comp: Component, cols: number): number {
  const w = comp.x1 - comp.x0;
  const h = comp.y1 - comp.y0;
  const inComp = new Uint8Array(w * h);
  for (const i of comp.cells) {
    const x = i % cols;
    const y = (i - x) / cols;
    inComp[(y - comp.y0) * w + (x - comp.x0)] = 1;
  }
  const outside = new Uint8Array(w * h);
  const stack: number[] = [];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if ((x === 0 || y === 0 || x === w - 1 || y === h - 1) && !inComp[y * w + x]) {
        outside[y * w + x] = 1;
        stack.push(y * w + x);
      }
    }
  }
  while (stack.length > 0) {
    const i = stack.pop()!;
    const x = i % w;
    const y = (i - x) / w;
    for (const j of [x > 0 ? i - 1 : -1, x < w - 1 ? i + 1 : -1, y > 0 ? i - w : -1, y < h - 1 ? i + w : -1]) {
      if (j >= 0 && !inComp[j] && !outside[j]) {
        outside[j] = 1;
        stack.push(j);
      }
    }
  }
  let holes = 0;
  for (let i = 0; i < w * h; i++) if (!inComp[i] && !outside[i]) holes++;
  return holes;
}
