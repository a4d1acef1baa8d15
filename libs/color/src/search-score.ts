import { oklabDistance, rgbToOklab, type Oklab } from './oklab';
import { optimalTransport } from './transport';
import type { PaletteEntry, Rgb, WeightedColor } from './types';

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
export function colorSearchScore(query: readonly WeightedColor[], target: readonly PaletteEntry[]): number {
  const queryTotal = query.reduce((s, q) => s + Math.max(0, q.weight), 0);
  const targetTotal = target.reduce((s, t) => s + Math.max(0, t.weight), 0);
  if (!(queryTotal > 0)) return 0;
  const wildcard = query.filter((q) => q.rgb === 'wildcard').reduce((s, q) => s + Math.max(0, q.weight), 0) / queryTotal;
  if (!(targetTotal > 0)) return wildcard >= 1 ? 100 : 0;

  const colored = query.filter((q): q is { rgb: Rgb; weight: number } => q.rgb !== 'wildcard' && q.weight > 0);
  const queryLabs = colored.map((q) => rgbToOklab(q.rgb));
  const targetLabs = target.map((t) => rgbToOklab(t.rgb));
  const similarity = queryLabs.map((q) => targetLabs.map((t) => colorSimilarity(q, t)));

  const supplies = [...colored.map((q) => q.weight / queryTotal), wildcard];
  const demands = target.map((t) => Math.max(0, t.weight) / targetTotal);
  const cost = [...similarity.map((row) => row.map((s) => 1 - s)), demands.map(() => 0)];
  const flow = optimalTransport(supplies, demands, cost);

  let matched = wildcard;
  for (let i = 0; i < colored.length; i++) for (let j = 0; j < target.length; j++) matched += flow[i][j] * similarity[i][j];
  return Math.min(100, Math.max(0, 100 * matched));
}
