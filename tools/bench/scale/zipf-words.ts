/** Search vocabulary size (libs/fingerprint/data/search-vocabulary.bin: 16^4 leaves, 60,055 of them trained). */
export const VOCABULARY = 60_055;
/** Distinct search words per photo, the benchmark photos' average with the search vocabulary. */
export const WORDS_PER_IMAGE = 760;

let cumulative: Float64Array | null = null;

/**
 * `count` word lists of WORDS_PER_IMAGE distinct words drawn from the vocabulary with a Zipf-like skew (rank^-0.8), so
 * that list lengths spread as the real ones do: a stand-in for photos' words where only the index's cost is measured.
 */
export function zipfWordLists(count: number, rand: () => number): Uint32Array[] {
  if (!cumulative) {
    cumulative = new Float64Array(VOCABULARY);
    let sum = 0;
    for (let r = 0; r < VOCABULARY; r++) cumulative[r] = sum += (r + 1) ** -0.8;
  }
  const table = cumulative;
  const total = table[VOCABULARY - 1];
  // Inverse CDF sampled by bisection on the cumulative table.
  const draw = () => {
    const u = rand() * total;
    let lo = 0;
    let hi = VOCABULARY - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (table[mid] < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return Array.from({ length: count }, () => {
    const words = new Set<number>();
    while (words.size < WORDS_PER_IMAGE) words.add(draw());
    return Uint32Array.from(words);
  });
}
