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
