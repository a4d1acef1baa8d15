import type { GrayImage, RgbImage } from './types';

/** Mean of each channel in each cell of a grid laid over an image: cellsX * cellsY * channels values, row by row. */
export interface CellGrid {
  means: Float32Array;
  cellsX: number;
  cellsY: number;
}

/**
 * Box-averages an image of `channels` interleaved channels (1 for grey, 3 for RGB) down to at most `maxCells` cells on
 * its longer side, never more cells than pixels and never fewer than `minCells` on either side; every pixel is counted
 * in exactly one cell. Averaging is what makes later statistics blind to per-pixel noise.
 */
export function averageCells(img: GrayImage | RgbImage, channels: number, maxCells: number, minCells = 1): CellGrid {
  const longer = Math.max(img.width, img.height);
  const cellsOn = (side: number) => Math.max(minCells, Math.min(side, Math.round((maxCells * side) / longer)));
  const cellsX = cellsOn(img.width);
  const cellsY = cellsOn(img.height);
  const { sums, counts } = sumCells(img, channels, cellsX, cellsY);
  // A grid held at minCells on a side thinner than that leaves cells without pixels; they read as 0.
  const means = new Float32Array(sums.length);
  for (let c = 0; c < counts.length; c++) {
    for (let k = 0; k < channels; k++) means[c * channels + k] = sums[c * channels + k] / (counts[c] || 1);
  }
  return { means, cellsX, cellsY };
}

/**
 * Per cell of a `cellsX` × `cellsY` grid laid over an image, the sum of each channel and the number of pixels: pixel
 * (x, y) falls in cell (⌊x·cellsX / width⌋, ⌊y·cellsY / height⌋). Sums are in double precision, added row by row, so a
 * fixed grid gives the same sums wherever it is asked for (the stored difference hashes depend on that).
 */
export function sumCells(img: GrayImage | RgbImage, channels: number, cellsX: number, cellsY: number): { sums: Float64Array; counts: Uint32Array } {
  const sums = new Float64Array(cellsX * cellsY * channels);
  const counts = new Uint32Array(cellsX * cellsY);
  const columnCell = new Uint32Array(img.width);
  for (let x = 0; x < img.width; x++) columnCell[x] = Math.min(cellsX - 1, Math.floor((x * cellsX) / img.width));

  for (let y = 0; y < img.height; y++) {
    const rowBase = Math.min(cellsY - 1, Math.floor((y * cellsY) / img.height)) * cellsX;
    const p = y * img.width * channels;
    if (channels === 3) addRgbRow(img.data, p, img.width, rowBase, columnCell, sums, counts);
    else addRow(img.data, p, img.width, channels, rowBase, columnCell, sums, counts);
  }
  return { sums, counts };
}

/** One row's pixels added to their cells' sums, any number of channels. */
function addRow(data: Uint8Array, p: number, width: number, channels: number, rowBase: number, columnCell: Uint32Array, sums: Float64Array, counts: Uint32Array): void {
  for (let x = 0; x < width; x++) {
    const cell = rowBase + columnCell[x];
    for (let k = 0; k < channels; k++) sums[cell * channels + k] += data[p++];
    counts[cell]++;
  }
}

/** `addRow` spelled out for RGB, which every query's assessment averages: the loop over channels took 1.6 times as long. */
function addRgbRow(data: Uint8Array, p: number, width: number, rowBase: number, columnCell: Uint32Array, sums: Float64Array, counts: Uint32Array): void {
  for (let x = 0; x < width; x++, p += 3) {
    const cell = rowBase + columnCell[x];
    sums[cell * 3] += data[p];
    sums[cell * 3 + 1] += data[p + 1];
    sums[cell * 3 + 2] += data[p + 2];
    counts[cell]++;
  }
}
