import { describe, expect, it } from 'vitest';
import { averageCells } from './cell-average';

describe('averageCells', () => {
  it('averages each RGB channel over its own cell, every pixel counted once', () => {
    // 4 x 2 RGB: the left half red, the right half blue, one cell per half.
    const data = new Uint8Array(4 * 2 * 3);
    for (let y = 0; y < 2; y++) {
      for (let x = 0; x < 4; x++) data.set(x < 2 ? [200, 0, 10] : [0, 50, 250], (y * 4 + x) * 3);
    }
    const grid = averageCells({ data, width: 4, height: 2 }, 3, 2);
    expect([grid.cellsX, grid.cellsY]).toEqual([2, 1]);
    expect(Array.from(grid.means)).toEqual([200, 0, 10, 0, 50, 250]);
  });

  it('keeps the aspect ratio and never makes more cells than pixels', () => {
    const grey = { data: new Uint8Array(300 * 100).fill(7), width: 300, height: 100 };
    expect(averageCells(grey, 1, 30)).toMatchObject({ cellsX: 30, cellsY: 10 });
    expect(averageCells({ data: new Uint8Array(6), width: 3, height: 2 }, 1, 128)).toMatchObject({ cellsX: 3, cellsY: 2 });
  });

  it('gives the mean of unequal cells exactly', () => {
    // 5 grey columns into 2 cells: columns 0-2 and 3-4.
    const grid = averageCells({ data: Uint8Array.from([10, 20, 30, 100, 200]), width: 5, height: 1 }, 1, 2);
    expect(Array.from(grid.means)).toEqual([20, 150]);
  });

  it('holds a thin strip at minCells a side, leaving the cells no pixel falls in at 0', () => {
    const strip = { data: Uint8Array.from([90, 90, 90, 90]), width: 4, height: 1 };
    const grid = averageCells(strip, 1, 4, 3);
    expect([grid.cellsX, grid.cellsY]).toEqual([4, 3]);
    expect(Array.from(grid.means.subarray(0, 4))).toEqual([90, 90, 90, 90]);
    expect(Array.from(grid.means.subarray(4))).toEqual(new Array(8).fill(0));
  });
});
