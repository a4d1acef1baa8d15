/**
 * Normalised cross-correlation of gradient magnitudes of two equally sized grey images over the pixels
 * where `mask` is non-zero. Gradients instead of greys make it blind to brightness/contrast changes, and
 * NCC to gain. Returns -1..1, or 0 when fewer than `minPixels` are compared.
 */
export function gradientNcc(a: Uint8Array, b: Uint8Array, mask: Uint8Array, width: number, height: number, minPixels: number): number {
  return maskedCorrelation(gradientMagnitude(a, width, height), gradientMagnitude(b, width, height), mask, minPixels);
}

/** Pearson correlation of two equally sized images over the pixels where `mask` is non-zero; 0 under `minPixels`. */
export function maskedCorrelation(a: Float32Array, b: Float32Array, mask: Uint8Array, minPixels = 1): number {
  let n = 0;
  let sa = 0;
  let sb = 0;
  for (let i = 0; i < a.length; i++) {
    if (!mask[i]) continue;
    n++;
    sa += a[i];
    sb += b[i];
  }
  if (n < minPixels) return 0;
  const ma = sa / n;
  const mb = sb / n;
  let cov = 0;
  let va = 0;
  let vb = 0;
  for (let i = 0; i < a.length; i++) {
    if (!mask[i]) continue;
    const da = a[i] - ma;
    const db = b[i] - mb;
    cov += da * db;
    va += da * da;
    vb += db * db;
  }
  return va > 0 && vb > 0 ? cov / Math.sqrt(va * vb) : 0;
}

/** Central-difference gradient magnitude; the one-pixel frame is left at zero. */
export function gradientMagnitude(img: Uint8Array, width: number, height: number): Float32Array {
  const out = new Float32Array(width * height);
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const i = y * width + x;
      const gx = img[i + 1] - img[i - 1];
      const gy = img[i + width] - img[i - width];
      out[i] = Math.sqrt(gx * gx + gy * gy);
    }
  }
  return out;
}
