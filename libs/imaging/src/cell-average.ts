import type { RgbImage } from './types';

/** Mean colour of each cell of a grid laid over an image: float RGB, cellsX * cellsY * 3 values. */
export interface CellGrid {
  means: Float32Array;
  cellsX: number;
  cellsY: number;
}

/**
 * Box-averages the image down to at most maxCells cells on its longer side (never more
 * cells than pixels). Averaging is what makes later statistics blind to per-pixel noise.
 */
export function averageCells(img: RgbImage, maxCells: number): CellGrid {
  const cellsX = Math.max(1, Math.min(img.width, Math.round((maxCells * img.width) / Math.max(img.width, img.height))));
  const cellsY = Math.max(1, Math.min(img.height, Math.round((maxCells * img.height) / Math.max(img.width, img.height))));
  const sums = new Float64Array(cellsX * cellsY * 3);
  const counts = new Uint32Array(cellsX * cellsY);
  const columnCell = new Uint32Array(img.width);
  for (let x = 0; x < img.width; x++) columnCell[x] = Math.floor((x * cellsX) / img.width);

  for (let y = 0; y < img.height; y++) {
    const rowBase = Math.floor((y * cellsY) / img.height) * cellsX;
    let p = y * img.width * 3;
    for (let x = 0; x < img.width; x++, p += 3) {
      const cell = rowBase + columnCell[x];
      sums[cell * 3] += img.data[p];
      sums[cell * 3 + 1] += img.data[p + 1];
      sums[cell * 3 + 2] += img.data[p + 2];
      counts[cell]++;
    }
  }
  const means = new Float32Array(sums.length);
  for (let c = 0; c < counts.length; c++) {
    for (let k = 0; k < 3; k++) means[c * 3 + k] = sums[c * 3 + k] / counts[c];
  }
  return { means, cellsX, cellsY };
}
