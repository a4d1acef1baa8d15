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

/** Descriptor rows as 32-bit words (8 per row), shared with the bytes when they are aligned. */
export function descriptorWords(descriptors: Uint8Array): Uint32Array {
  if (descriptors.byteOffset % 4 === 0) return new Uint32Array(descriptors.buffer, descriptors.byteOffset, descriptors.byteLength >> 2);
  return new Uint32Array(descriptors.slice().buffer);
}

const WORDS_PER_DESCRIPTOR = DESCRIPTOR_BYTES / 4;

/**
 * Whether rows `i` of `a` and `j` of `b` (from `descriptorWords`) differ in at most `max` bits. It stops at the first
 * word that takes the count past `max`: unrelated descriptors differ in about half their bits, so most checks end
 * within three of the eight words.
 */
export function hammingWithin(a: Uint32Array, i: number, b: Uint32Array, j: number, max: number): boolean {
  let d = 0;
  const ao = i * WORDS_PER_DESCRIPTOR;
  const bo = j * WORDS_PER_DESCRIPTOR;
  for (let k = 0; k < WORDS_PER_DESCRIPTOR; k++) {
    let x = a[ao + k] ^ b[bo + k];
    x -= (x >>> 1) & 0x55555555;
    x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
    d += (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
    if (d > max) return false;
  }
  return true;
}
