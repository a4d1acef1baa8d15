/** Masses below this are rounding dust from floating-point augmentation, not flow still to route. */
const MASS_EPSILON = 1e-12;

/**
 * Optimal transport between small discrete distributions (earth mover's problem): moves every supply to the
 * demands at least total cost, where cost[i][j] is the cost of one unit from supply i to demand j (≥ 0).
 * Supplies and demands must have equal totals. Returns the flow matrix. Solved as min-cost flow by successive
 * shortest paths (Bellman-Ford on the residual graph); sizes here are at most a few dozen a side.
 */
export function optimalTransport(
  supplies: readonly number[],
  demands: readonly number[],
  cost: readonly (readonly number[])[],
): number[][] {
  const m = supplies.length;
  const n = demands.length;
  const flow = supplies.map(() => demands.map(() => 0));
  const supplyLeft = [...supplies];
  const demandLeft = [...demands];
  for (;;) {
    const path = shortestAugmentingPath(supplyLeft, demandLeft, flow, cost, m, n);
    if (!path) return flow;
    let amount = Math.min(supplyLeft[path.source], demandLeft[path.sink]);
    for (const s of path.steps) if (s.backward) amount = Math.min(amount, flow[s.i][s.j]);
    for (const s of path.steps) flow[s.i][s.j] += s.backward ? -amount : amount;
    supplyLeft[path.source] -= amount;
    demandLeft[path.sink] -= amount;
  }
}

interface Step {
  i: number;
  j: number;
  backward: boolean;
}

/**
 * Cheapest path from a supply with mass left to a demand with room left, alternating forward edges
 * (supply i → demand j, cost c) and backward edges (demand j → supply i where flow exists, cost −c).
 */
function shortestAugmentingPath(
  supplyLeft: readonly number[],
  demandLeft: readonly number[],
  flow: readonly (readonly number[])[],
  cost: readonly (readonly number[])[],
  m: number,
  n: number,
): { source: number; sink: number; steps: Step[] } | undefined {
  // Nodes 0..m-1 are supplies, m..m+n-1 demands.
  const dist = new Array<number>(m + n).fill(Infinity);
  const prev = new Array<number>(m + n).fill(-1);
  for (let i = 0; i < m; i++) {
    if (supplyLeft[i] > MASS_EPSILON) {
      dist[i] = 0;
    }
  }
  for (let round = 0; round < m + n; round++) {
    let improved = false;
    for (let i = 0; i < m; i++) {
      if (dist[i] === Infinity) continue;
      for (let j = 0; j < n; j++) {
        const d = dist[i] + cost[i][j];
        if (d < dist[m + j] - MASS_EPSILON) {
          dist[m + j] = d;
          prev[m + j] = i;
          improved = true;
        }
      }
    }
    for (let j = 0; j < n; j++) {
      if (dist[m + j] === Infinity) continue;
      for (let i = 0; i < m; i++) {
        if (flow[i][j] <= MASS_EPSILON) continue;
        const d = dist[m + j] - cost[i][j];
        if (d < dist[i] - MASS_EPSILON) {
          dist[i] = d;
          prev[i] = m + j;
          improved = true;
        }
      }
    }
    if (!improved) break;
  }
  let sink = -1;
  for (let j = 0; j < n; j++) {
    if (demandLeft[j] > MASS_EPSILON && dist[m + j] < Infinity && (sink < 0 || dist[m + j] < dist[m + sink])) sink = j;
  }
  if (sink < 0) return undefined;
  const steps: Step[] = [];
  let node = m + sink;
  while (prev[node] >= 0) {
    const from = prev[node];
    if (node >= m) steps.push({ i: from, j: node - m, backward: false });
    else steps.push({ i: node, j: from - m, backward: true });
    node = from;
  }
  return { source: node, sink, steps };
}
