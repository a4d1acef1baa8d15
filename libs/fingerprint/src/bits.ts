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

/**
 * Tversky likeness (0-1) of a slot's 64-bit set to a probe's, each given as its high and low 32 bits: the bits both
 * have over those, the probe's own bits and `slotOnlyWeight` times the slot's own bits (1 makes it Jaccard's); 0 when
 * both are empty.
 */
export function tverskyOfHalves(highSlot: number, lowSlot: number, highProbe: number, lowProbe: number, slotOnlyWeight: number): number {
  return tverskyWithProbeBits(highSlot, lowSlot, highProbe, lowProbe, popcount32(highProbe) + popcount32(lowProbe), slotOnlyWeight);
}

/** `tverskyOfHalves` given the probe's bit count, which a scan counts once: shared and probe-only bits make it up. */
function tverskyWithProbeBits(highSlot: number, lowSlot: number, highProbe: number, lowProbe: number, probeBits: number, slotOnlyWeight: number): number {
  const both = popcount32((highSlot & highProbe) >>> 0) + popcount32((lowSlot & lowProbe) >>> 0);
  const slotOnly = popcount32(highSlot) + popcount32(lowSlot) - both;
  const weighed = probeBits + slotOnlyWeight * slotOnly;
  return weighed === 0 ? 0 : both / weighed;
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
 * Calls `visit(slot, likeness)` for each of the first `count` slots whose Tversky likeness (`tverskyOfHalves`) to
 * (`high`, `low`) is at least `least`; `visit` returns the least likeness for the slots after it.
 */
export function scanByTversky(highs: Uint32Array, lows: Uint32Array, count: number, high: number, low: number, slotOnlyWeight: number, least: number, visit: (slot: number, likeness: number) => number): void {
  const probeBits = popcount32(high) + popcount32(low);
  for (let slot = 0; slot < count; slot++) {
    const likeness = tverskyWithProbeBits(highs[slot], lows[slot], high, low, probeBits, slotOnlyWeight);
    if (likeness >= least) least = visit(slot, likeness);
  }
}
