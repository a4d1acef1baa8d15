/**
 * Largest accepted input, in pixels. 100 megapixels is above any phone or DSLR photo
 * (a 61 MP full-frame sensor is the largest common one) yet keeps a full RGBA decode
 * near 400 MB, which a 2-core worker can survive; it also stops decompression bombs.
 */
export const MAX_INPUT_PIXELS = 100_000_000;
