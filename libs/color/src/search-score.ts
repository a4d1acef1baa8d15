import { DELTA_E_SCALE, oklabDistance, rgbToOklab, type Oklab } from './oklab';
import { optimalTransport } from './transport';
import type { Rgb, WeightedColor } from './types';

/**
 * ΔE_OK at which two colors count as 1/e (37 %) similar. Measured against #1f4e9c: a close shade (#2a5aa8,
 * ΔE 4) keeps 95 %, royal blue (#4169e1, ΔE 13) 58 %, navy (ΔE 17) 39 %, dark red (#c62828, ΔE 31) 5 %, pure red
 * (ΔE 41) 0.6 %: "a clearly different blue" lands in 40-70 and red under 10, as the color search needs.
 */
export const SIMILARITY_DELTA_E = 18;

/** Similarity of two colors from their ΔE_OK: exp(−(ΔE / SIMILARITY_DELTA_E)²), 1 for equal colors. */
export function colorSimilarity(a: Oklab, b: Oklab): number {
  const x = oklabDistance(a, b) / SIMILARITY_DELTA_E;
  return Math.exp(-x * x);
}

/** A color query converted once to OKLab, its colored weights and wildcard share as fractions of the whole query. */
export interface PreparedQuery {
  labs: Oklab[];
  shares: number[];
  wildcard: number;
  /** False when the query has no positive weight at all: every palette scores 0. */
  valid: boolean;
}

/** A palette converted once to OKLab with its weights as fractions of its area (a search cache holds these). */
export interface PreparedPalette {
  labs: Oklab[];
  shares: number[];
}

export function prepareQuery(query: readonly WeightedColor[]): PreparedQuery {
  const total = query.reduce((s, q) => s + Math.max(0, q.weight), 0);
  if (!(total > 0)) return { labs: [], shares: [], wildcard: 0, valid: false };
  const wildcard = query.filter((q) => q.rgb === 'wildcard').reduce((s, q) => s + Math.max(0, q.weight), 0) / total;
  const colored = query.filter((q): q is { rgb: Rgb; weight: number } => q.rgb !== 'wildcard' && q.weight > 0);
  return { labs: colored.map((q) => rgbToOklab(q.rgb)), shares: colored.map((q) => q.weight / total), wildcard, valid: true };
}

export function preparePalette(palette: readonly { rgb: Rgb; weight: number }[]): PreparedPalette {
  const total = palette.reduce((s, t) => s + Math.max(0, t.weight), 0);
  const kept = total > 0 ? palette.filter((t) => t.weight > 0) : [];
  return { labs: kept.map((t) => rgbToOklab(t.rgb)), shares: kept.map((t) => t.weight / total) };
}

function similarities(query: PreparedQuery, palette: PreparedPalette): number[][] {
  return query.labs.map((q) => palette.labs.map((t) => colorSimilarity(q, t)));
}

/** The exact score of a prepared query against a prepared palette (see colorSearchScore). */
export function scorePrepared(query: PreparedQuery, palette: PreparedPalette, sim = similarities(query, palette)): number {
  if (!query.valid) return 0;
  if (palette.labs.length === 0) return query.wildcard >= 1 ? 100 : 0;
  if (query.labs.length === 0) return 100 * Math.min(1, query.wildcard);
  const supplies = [...query.shares, query.wildcard];
  const cost = [...sim.map((row) => row.map((s) => 1 - s)), palette.shares.map(() => 0)];
  const flow = optimalTransport(supplies, palette.shares, cost);
  let matched = query.wildcard;
  for (let i = 0; i < query.labs.length; i++) for (let j = 0; j < palette.labs.length; j++) matched += flow[i][j] * sim[i][j];
  return Math.min(100, Math.max(0, 100 * matched));
}

/**
 * How well a palette matches a color query, 0-100.
 *
 * Both sides are normalised to distributions (query weights / their sum, palette weights / 100). The query's
 * colored mass is moved onto the palette's area by optimal transport (earth mover's distance) with unit cost
 * 1 − similarity(ΔE_OK); the wildcard's mass takes whatever palette area is left, at no cost. Then
 *   score = 100 × (wildcard share + Σ flow_ij × similarity_ij) = 100 × (1 − minimal transport cost).
 * So an image that is 97 % the query color scores ≥ 97, every unmatched or differently colored share of area
 * costs in proportion to its size and how different it is, and a query of only a wildcard scores 100.
 */
export function colorSearchScore(query: readonly WeightedColor[], target: readonly { rgb: Rgb; weight: number }[]): number {
  return scorePrepared(prepareQuery(query), preparePalette(target));
}

/**
 * Bounds of the exact score that cost microseconds less than the transport itself.
 * Upper: each unit of query color gets at best its most similar palette color, and each unit of palette area can
 * take at most its own share of colored mass at its best similarity. Lower: a greedy feasible flow (most similar
 * pairs first), which the optimal flow can only beat.
 */
export function scoreBounds(query: PreparedQuery, palette: PreparedPalette, sim: number[][]): { lower: number; upper: number } {
  if (!query.valid) return { lower: 0, upper: 0 };
  if (palette.labs.length === 0 || query.labs.length === 0) {
    const exact = scorePrepared(query, palette, sim);
    return { lower: exact, upper: exact };
  }
  let bySupply = query.wildcard;
  for (let i = 0; i < sim.length; i++) bySupply += query.shares[i] * Math.max(...sim[i]);
  let byDemand = query.wildcard;
  for (let j = 0; j < palette.labs.length; j++) {
    let best = 0;
    for (let i = 0; i < sim.length; i++) best = Math.max(best, sim[i][j]);
    byDemand += palette.shares[j] * best;
  }
  const pairs: Array<[number, number, number]> = [];
  for (let i = 0; i < sim.length; i++) for (let j = 0; j < palette.labs.length; j++) pairs.push([sim[i][j], i, j]);
  pairs.sort((a, b) => b[0] - a[0]);
  const supply = [...query.shares];
  const demand = [...palette.shares];
  let greedy = query.wildcard;
  for (const [s, i, j] of pairs) {
    const amount = Math.min(supply[i], demand[j]);
    if (amount <= 0) continue;
    greedy += amount * s;
    supply[i] -= amount;
    demand[j] -= amount;
  }
  // The tolerance absorbs floating-point dust so a bound never excludes a palette whose exact score equals it.
  return { lower: Math.max(0, 100 * greedy - 1e-9), upper: Math.min(100, 100 * Math.min(bySupply, byDemand) + 1e-9) };
}

export interface RankedPalette {
  index: number;
  score: number;
}

/** (100 / SIMILARITY_DELTA_E)²: turns a squared OKLab distance straight into the exponent of colorSimilarity. */
const SIM_SCALE = (DELTA_E_SCALE / SIMILARITY_DELTA_E) ** 2;

/**
 * The upper bound of scoreBounds without building the similarity matrix: one pass over query × palette colors
 * with no allocation, because it runs for every palette of a collection on every search.
 */
function upperBound(query: PreparedQuery, palette: PreparedPalette, bestPerQuery: Float64Array): number {
  const m = query.labs.length;
  const n = palette.labs.length;
  if (!query.valid) return 0;
  if (n === 0 || m === 0) return scorePrepared(query, palette, similarities(query, palette));
  bestPerQuery.fill(0, 0, m);
  let byDemand = query.wildcard;
  for (let j = 0; j < n; j++) {
    const t = palette.labs[j];
    let best = 0;
    for (let i = 0; i < m; i++) {
      const q = query.labs[i];
      const dL = q[0] - t[0];
      const da = q[1] - t[1];
      const db = q[2] - t[2];
      const sim = Math.exp(-(dL * dL + da * da + db * db) * SIM_SCALE);
      if (sim > best) best = sim;
      if (sim > bestPerQuery[i]) bestPerQuery[i] = sim;
    }
    byDemand += palette.shares[j] * best;
  }
  let bySupply = query.wildcard;
  for (let i = 0; i < m; i++) bySupply += query.shares[i] * bestPerQuery[i];
  return Math.min(100, 100 * Math.min(bySupply, byDemand) + 1e-9);
}

/**
 * Scores many palettes against one query and returns the `take` best (exact scores, best first; ties by index) and
 * how many reach `minScore`. An allocation-free upper bound is computed for every palette; the transport is solved
 * only for palettes that can still enter the best `take` (visited by decreasing bound, stopping when the bound falls
 * under the take-th exact score) and, when minScore > 0, for those the bounds cannot place on either side of it.
 * `take` 0 means all.
 */
export function rankPalettes(
  query: PreparedQuery,
  palettes: readonly PreparedPalette[],
  options: { minScore: number; take: number },
): { hits: RankedPalette[]; matched: number } {
  const minScore = options.minScore;
  const take = options.take > 0 ? options.take : Number.POSITIVE_INFINITY;
  const scratch = new Float64Array(Math.max(1, query.labs.length));
  const uppers = new Float64Array(palettes.length);
  for (let k = 0; k < palettes.length; k++) uppers[k] = upperBound(query, palettes[k], scratch);
  const exact = new Map<number, number>();
  const exactScore = (k: number): number => {
    let score = exact.get(k);
    if (score === undefined) {
      score = scorePrepared(query, palettes[k]);
      exact.set(k, score);
    }
    return score;
  };

  let matched = 0;
  for (let k = 0; k < palettes.length; k++) {
    if (uppers[k] < minScore) continue;
    // Every score is ≥ 0, so with no minimum each palette counts without any further work.
    if (minScore <= 0) {
      matched++;
      continue;
    }
    const palette = palettes[k];
    const { lower } = scoreBounds(query, palette, similarities(query, palette));
    if (lower >= minScore || exactScore(k) >= minScore) matched++;
  }

  const order: number[] = [];
  for (let k = 0; k < palettes.length; k++) if (uppers[k] >= minScore) order.push(k);
  order.sort((a, b) => uppers[b] - uppers[a] || a - b);
  if (take === Number.POSITIVE_INFINITY) {
    const all = order.map((k) => ({ index: k, score: exactScore(k) })).filter((h) => h.score >= minScore);
    return { hits: all.sort((a, b) => b.score - a.score || a.index - b.index), matched };
  }
  const hits: RankedPalette[] = [];
  for (const k of order) {
    if (hits.length >= take && uppers[k] < hits[hits.length - 1].score) break;
    const score = exactScore(k);
    if (score < minScore) continue;
    insertSorted(hits, { index: k, score });
    if (hits.length > take) hits.pop();
  }
  return { hits, matched };
}

function insertSorted(hits: RankedPalette[], hit: RankedPalette): void {
  let at = hits.length;
  while (at > 0 && (hits[at - 1].score < hit.score || (hits[at - 1].score === hit.score && hits[at - 1].index > hit.index))) at--;
  hits.splice(at, 0, hit);
}
