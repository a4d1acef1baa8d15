/* Hamming distances between 256-bit ORB descriptors stored as 32-byte rows. */

export const DESCRIPTOR_BYTES = 32;

/** Bit count of every byte value, so a 32-byte distance is 32 table lookups. */
const POPCOUNT = (() => {
  const t = new Uint8Array(256);
  for (let i = 1; i < 256; i++) t[i] = (i & 1) + t[i >> 1];
  return t;
})();

/** Hamming distance between row `i` of `a` and row `j` of `b`. */
export function hamming(a: Uint8Array, i: number, b: Uint8Array, j: number): number {
  let d = 0;
  const ao = i * DESCRIPTOR_BYTES;
  const bo = j * DESCRIPTOR_BYTES;
  for (let k = 0; k < DESCRIPTOR_BYTES; k++) d += POPCOUNT[a[ao + k] ^ b[bo + k]];
  return d;
}
