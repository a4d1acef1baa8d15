/** Weights are percentages with two decimals (docs/protocol.md §8), so they are apportioned in 0.01 steps. */
const HUNDREDTHS_PER_WHOLE = 100 * 100;

/**
 * Turns masses into percentages rounded to 2 decimals that sum to exactly 100 (largest-remainder method: round
 * down, then hand the missing hundredths to the largest remainders). All-zero or empty input gives zeros.
 */
export function toPercentages(masses: readonly number[]): number[] {
  const total = masses.reduce((s, m) => s + m, 0);
  if (!(total > 0)) return masses.map(() => 0);
  const exact = masses.map((m) => (m / total) * HUNDREDTHS_PER_WHOLE);
  const units = exact.map(Math.floor);
  let missing = HUNDREDTHS_PER_WHOLE - units.reduce((s, u) => s + u, 0);
  const byRemainder = exact.map((e, i) => ({ i, r: e - units[i] })).sort((x, y) => y.r - x.r || x.i - y.i);
  for (const { i } of byRemainder) {
    if (missing <= 0) break;
    units[i]++;
    missing--;
  }
  return units.map((u) => u / 100);
}
