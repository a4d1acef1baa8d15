import { histogram, otsuThreshold, type GrayImage } from './grey';

/** Labels photographed by hand are rarely tilted more than this; beyond it, rotation is a layout, not a skew. */
const MAX_SKEW_DEGREES = 10;
const SKEW_STEP_DEGREES = 0.5;
/** Below this the gain in OCR is nil and resampling blurs the glyphs for nothing. */
export const MIN_CORRECTED_SKEW_DEGREES = 1;

/**
 * Dominant text angle in degrees: text lines run along y = x·tan(angle) + c in image coordinates (y down),
 * so a positive angle is a clockwise tilt.
 * Projection profiles: dark pixels are projected onto lines at each candidate angle; the angle where text lines
 * line up gives the most peaked profile (largest sum of squared bin counts).
 */
export function estimateSkew(g: GrayImage): number {
  const threshold = otsuThreshold(histogram(g));
  const xs: number[] = [];
  const ys: number[] = [];
  const stride = Math.max(1, Math.floor(Math.sqrt((g.width * g.height) / 40000)));
  for (let y = 0; y < g.height; y += stride) {
    for (let x = 0; x < g.width; x += stride) {
      if (g.data[y * g.width + x] <= threshold) {
        xs.push(x);
        ys.push(y);
      }
    }
  }
  if (xs.length === 0) return 0;
  const binCount = g.height + g.width;
  const bins = new Float64Array(binCount);
  let bestAngle = 0;
  let bestEnergy = -1;
  for (let deg = -MAX_SKEW_DEGREES; deg <= MAX_SKEW_DEGREES + 1e-9; deg += SKEW_STEP_DEGREES) {
    const t = (deg * Math.PI) / 180;
    const sin = Math.sin(t);
    const cos = Math.cos(t);
    bins.fill(0);
    for (let i = 0; i < xs.length; i++) {
      const r = Math.round(ys[i] * cos - xs[i] * sin + g.width);
      if (r >= 0 && r < binCount) bins[r]++;
    }
    let energy = 0;
    for (let i = 0; i < binCount; i++) energy += bins[i] * bins[i];
    if (energy > bestEnergy || (energy === bestEnergy && Math.abs(deg) < Math.abs(bestAngle))) {
      bestEnergy = energy;
      bestAngle = deg;
    }
  }
  return bestAngle;
}

/** Rotates by -angle around the centre (undoing a skew of angle), filling with white; bilinear. */
export function rotateGrey(g: GrayImage, angleDegrees: number): GrayImage {
  const t = (angleDegrees * Math.PI) / 180;
  const sin = Math.sin(t);
  const cos = Math.cos(t);
  const cx = g.width / 2;
  const cy = g.height / 2;
  const out = new Uint8Array(g.width * g.height);
  for (let y = 0; y < g.height; y++) {
    for (let x = 0; x < g.width; x++) {
      // Output pixel (x, y) samples the source rotated forward by the skew angle.
      const dx = x - cx;
      const dy = y - cy;
      const sx = cx + dx * cos - dy * sin;
      const sy = cy + dx * sin + dy * cos;
      const x0 = Math.floor(sx);
      const y0 = Math.floor(sy);
      if (x0 < 0 || y0 < 0 || x0 + 1 >= g.width || y0 + 1 >= g.height) {
        out[y * g.width + x] = 255;
        continue;
      }
      const fx = sx - x0;
      const fy = sy - y0;
      const i = y0 * g.width + x0;
      const top = g.data[i] * (1 - fx) + g.data[i + 1] * fx;
      const bottom = g.data[i + g.width] * (1 - fx) + g.data[i + g.width + 1] * fx;
      out[y * g.width + x] = Math.round(top * (1 - fy) + bottom * fy);
    }
  }
  return { data: out, width: g.width, height: g.height };
}

/** Where a point of the deskewed image lies in the original (the forward rotation used by rotateGrey). */
export function unrotatePoint(x: number, y: number, width: number, height: number, angleDegrees: number): [number, number] {
  const t = (angleDegrees * Math.PI) / 180;
  const cx = width / 2;
  const cy = height / 2;
  const dx = x - cx;
  const dy = y - cy;
  return [cx + dx * Math.cos(t) - dy * Math.sin(t), cy + dx * Math.sin(t) + dy * Math.cos(t)];
}
