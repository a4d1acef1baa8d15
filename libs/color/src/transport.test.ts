import { describe, expect, it } from 'vitest';
import { optimalTransport } from './transport';

const totalCost = (flow: number[][], cost: number[][]) =>
  flow.reduce((s, row, i) => s + row.reduce((t, f, j) => t + f * cost[i][j], 0), 0);

describe('optimal transport', () => {
  it('finds the cheaper plan where taking the cheapest edge first would not', () => {
    const cost = [
      [0, 1],
      [0, 10],
    ];
    const flow = optimalTransport([0.5, 0.5], [0.5, 0.5], cost);
    expect(totalCost(flow, cost)).toBeCloseTo(0.5, 9);
  });

  it('ships every supply and fills every demand', () => {
    const cost = [
      [3, 1, 4],
      [1, 5, 9],
      [2, 6, 5],
    ];
    const flow = optimalTransport([0.2, 0.3, 0.5], [0.6, 0.1, 0.3], cost);
    flow.forEach((row, i) => expect(row.reduce((s, f) => s + f, 0)).toBeCloseTo([0.2, 0.3, 0.5][i], 9));
    [0.6, 0.1, 0.3].forEach((d, j) => expect(flow.reduce((s, row) => s + row[j], 0)).toBeCloseTo(d, 9));
    for (const row of flow) for (const f of row) expect(f).toBeGreaterThanOrEqual(-1e-12);
  });

  it('matches a brute-force optimum on a 2×3 problem', () => {
    const cost = [
      [0.9, 0.1, 0.5],
      [0.2, 0.8, 0.3],
    ];
    const supplies = [0.4, 0.6];
    const demands = [0.3, 0.3, 0.4];
    // With two supplies the plan is fixed by row 0: search it on a fine grid.
    let best = Infinity;
    const step = 0.01;
    for (let a = 0; a <= 0.3 + 1e-9; a += step) {
      for (let b = 0; b <= 0.3 + 1e-9 && a + b <= 0.4 + 1e-9; b += step) {
        const c = 0.4 - a - b;
        if (c < -1e-9 || c > 0.4 + 1e-9) continue;
        const row1 = [0.3 - a, 0.3 - b, 0.4 - c];
        if (row1.some((v) => v < -1e-9)) continue;
        best = Math.min(best, a * 0.9 + b * 0.1 + c * 0.5 + row1[0] * 0.2 + row1[1] * 0.8 + row1[2] * 0.3);
      }
    }
    expect(totalCost(optimalTransport(supplies, demands, cost), cost)).toBeCloseTo(best, 6);
  });
});
