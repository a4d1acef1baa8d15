import { describe, expect, it } from 'vitest';
import { DESCRIPTOR_BYTES, hamming } from '../hamming';
import { seededRandom } from '../random';
import { nearestTwoInCells, NO_DISTANCE } from './hamming-kernel';

describe('Hamming kernel (WebAssembly)', () => {
  it('finds the same nearest and second-nearest distances as a plain loop, cell by cell', () => {
    const rnd = seededRandom(11);
    const cellCount = 4;
    const targets = Uint8Array.from({ length: 300 * DESCRIPTOR_BYTES }, () => Math.floor(rnd() * 256));
    // Sorted cell by cell: cell c holds positions [ranges[2c], ranges[2c + 1]); cell 3 is empty.
    const ranges = Int32Array.of(0, 120, 120, 121, 121, 300, 300, 300);
    const query = Uint8Array.from({ length: 500 * DESCRIPTOR_BYTES }, () => Math.floor(rnd() * 256));
    const cells = Int32Array.from({ length: 500 }, (_, i) => (i % 7 === 0 ? -1 : i % cellCount));
    const got = nearestTwoInCells(query, cells, targets, ranges);
    for (let i = 0; i < 500; i++) {
      let best = NO_DISTANCE;
      let second = NO_DISTANCE;
      let position = -1;
      if (cells[i] >= 0) {
        for (let k = ranges[2 * cells[i]]; k < ranges[2 * cells[i] + 1]; k++) {
          const d = hamming(query, i, targets, k);
          if (d < best) [second, best, position] = [best, d, k];
          else if (d < second) second = d;
        }
      }
      expect([got.position[i], got.best[i], got.second[i]]).toEqual([position, best, second]);
    }
  });

  it('reads the targets through an order of their rows as it reads them copied in that order', () => {
    const rnd = seededRandom(13);
    const rows = 200;
    const targets = Uint8Array.from({ length: rows * DESCRIPTOR_BYTES }, () => Math.floor(rnd() * 256));
    const order = Int32Array.from({ length: rows }, (_, k) => (k * 37 + 11) % rows);
    const inOrder = new Uint8Array(targets.length);
    order.forEach((row, k) => inOrder.set(targets.subarray(row * DESCRIPTOR_BYTES, (row + 1) * DESCRIPTOR_BYTES), k * DESCRIPTOR_BYTES));
    const ranges = Int32Array.of(0, 70, 70, 71, 71, 200);
    const query = Uint8Array.from({ length: 150 * DESCRIPTOR_BYTES }, () => Math.floor(rnd() * 256));
    const cells = Int32Array.from({ length: 150 }, (_, i) => (i % 5 === 0 ? -1 : i % 3));
    const viaOrder = nearestTwoInCells(query, cells, targets, ranges, order);
    const copied = nearestTwoInCells(query, cells, inOrder, ranges);
    expect(viaOrder).toEqual(copied);
    expect(Array.from(viaOrder.position).some((p) => p > 0)).toBe(true);
  });

  it('grows its memory for large inputs and gives the distance of identical descriptors as 0', () => {
    const rnd = seededRandom(12);
    const count = 5000;
    const descriptors = Uint8Array.from({ length: count * DESCRIPTOR_BYTES }, () => Math.floor(rnd() * 256));
    const got = nearestTwoInCells(descriptors, new Int32Array(count), descriptors, Int32Array.of(0, count));
    expect(Array.from(got.best).every((d) => d === 0)).toBe(true);
    expect(Array.from(got.position.subarray(0, 10))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});
