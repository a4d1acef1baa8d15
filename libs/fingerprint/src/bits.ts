/** Set bits of a 32-bit value (SWAR). */
export function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/** The high 32 bits of a 64-bit value (of its two's complement when negative), as an unsigned number. */
export const high32 = (value: bigint): number => Number(BigInt.asUintN(64, value) >> 32n);

/** The low 32 bits of a 64-bit value, as an unsigned number. */
export const low32 = (value: bigint): number => Number(BigInt.asUintN(32, value));

/*
 * 64-bit sets held as two arrays of their 32-bit halves (whole-image hashes, colour sets), compared and scanned slot by
 * slot. The scans are here, beside the kernels they call, because a call into another module inside a loop over a
 * million slots is not inlined when the code runs through tsx (esbuild's CommonJS interop reads an imported function
 * through getters): the hash scan of 1,000,000 images took 35-60 ms that way, 8-11 ms as tsc builds it, and about
 * 4 ms with the kernel in the loop's own module.
 */

/** Bits in which two 64-bit values, each given as its high and low 32 bits, differ. */
export function hammingOfHalves(highA: number, lowA: number, highB: number, lowB: number): number {
  return popcount32((highA ^ highB) >>> 0) + popcount32((lowA ^ lowB) >>> 0);
}

/** Jaccard likeness (0-1) of two 64-bit sets given as their high and low 32 bits; 0 when both are empty. */
export function jaccardOfHalves(highA: number, lowA: number, highB: number, lowB: number): number {
  const union = popcount32((highA | highB) >>> 0) + popcount32((lowA | lowB) >>> 0);
  return union === 0 ? 0 : (popcount32((highA & highB) >>> 0) + popcount32((lowA & lowB) >>> 0)) / union;
}

/**
 * Calls `visit(slot, distance)` for each of the first `count` slots whose bits differ from (`high`, `low`) in at most
 * `bound` bits; `visit` returns the bound for the slots after it (a caller keeping the nearest few tightens it).
 */
export function scanByHamming(highs: Uint32Array, lows: Uint32Array, count: number, high: number, low: number, bound: number, visit: (slot: number, distance: number) => number): void {
  for (let slot = 0; slot < count; slot++) {
    const distance = hammingOfHalves(highs[slot], lows[slot], high, low);
    if (distance <= bound) bound = visit(slot, distance);
  }
}

/**
 * Calls `visit(slot, likeness)` for each of the first `count` slots whose Jaccard likeness to (`high`, `low`) is at
 * least `least`; `visit` returns the least likeness for the slots after it.
 */
export function scanByJaccard(highs: Uint32Array, lows: Uint32Array, count: number, high: number, low: number, least: number, visit: (slot: number, likeness: number) => number): void {
  for (let slot = 0; slot < count; slot++) {
    const likeness = jaccardOfHalves(highs[slot], lows[slot], high, low);
    if (likeness >= least) least = visit(slot, likeness);
  }
}
