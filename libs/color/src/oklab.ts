import type { Rgb } from './types';

/** A color in OKLab (Björn Ottosson, 2020): L in 0..1, a and b roughly -0.4..0.4. */
export type Oklab = readonly [number, number, number];

/** sRGB byte → linear light, tabulated because every pixel needs it three times. */
const SRGB_TO_LINEAR: Float64Array = (() => {
  const table = new Float64Array(256);
  for (let i = 0; i < 256; i++) {
    const c = i / 255;
    table[i] = c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
  }
  return table;
})();

function linearToSrgbByte(x: number): number {
  const c = x <= 0.0031308 ? 12.92 * x : 1.055 * Math.pow(x, 1 / 2.4) - 0.055;
  return Math.min(255, Math.max(0, Math.round(c * 255)));
}

/** Converts linear-light RGB (0..1) to OKLab. */
export function linearRgbToOklab(r: number, g: number, b: number): Oklab {
  const l = Math.cbrt(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b);
  const m = Math.cbrt(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b);
  const s = Math.cbrt(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b);
  return [
    0.2104542553 * l + 0.793617785 * m - 0.0040720468 * s,
    1.9779984951 * l - 2.428592205 * m + 0.4505937099 * s,
    0.0259040371 * l + 0.7827717662 * m - 0.808675766 * s,
  ];
}

/** srgbToOklab written into out[offset..offset+2], for per-pixel loops that cannot afford an array per pixel. */
export function srgbToOklabInto(r: number, g: number, b: number, out: Float32Array, offset: number): void {
  const lr = SRGB_TO_LINEAR[r];
  const lg = SRGB_TO_LINEAR[g];
  const lb = SRGB_TO_LINEAR[b];
  const l = Math.cbrt(0.4122214708 * lr + 0.5363325363 * lg + 0.0514459929 * lb);
  const m = Math.cbrt(0.2119034982 * lr + 0.6806995451 * lg + 0.1073969566 * lb);
  const s = Math.cbrt(0.0883024619 * lr + 0.2817188376 * lg + 0.6299787005 * lb);
  out[offset] = 0.2104542553 * l + 0.793617785 * m - 0.0040720468 * s;
  out[offset + 1] = 1.9779984951 * l - 2.428592205 * m + 0.4505937099 * s;
  out[offset + 2] = 0.0259040371 * l + 0.7827717662 * m - 0.808675766 * s;
}

export function srgbToOklab(r: number, g: number, b: number): Oklab {
  return linearRgbToOklab(SRGB_TO_LINEAR[r], SRGB_TO_LINEAR[g], SRGB_TO_LINEAR[b]);
}

export function rgbToOklab(rgb: Rgb): Oklab {
  return srgbToOklab(rgb[0], rgb[1], rgb[2]);
}

/** Converts OKLab back to sRGB bytes, clipping colors outside the sRGB gamut. */
export function oklabToRgb(lab: Oklab): Rgb {
  const [L, a, b] = lab;
  const l = (L + 0.3963377774 * a + 0.2158037573 * b) ** 3;
  const m = (L - 0.1055613458 * a - 0.0638541728 * b) ** 3;
  const s = (L - 0.0894841775 * a - 1.291485548 * b) ** 3;
  return [
    linearToSrgbByte(4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s),
    linearToSrgbByte(-1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s),
    linearToSrgbByte(-0.0041960863 * l - 0.7034186147 * m + 1.707614701 * s),
  ];
}

/**
 * Scale from OKLab distance to ΔE units, so that the numbers read like the familiar CIELAB ΔE
 * (white to black is 100; about 2 is the smallest difference people notice side by side).
 */
export const DELTA_E_SCALE = 100;

/** ΔE_OK: Euclidean distance in OKLab × 100. */
export function oklabDistance(p: Oklab, q: Oklab): number {
  const dL = p[0] - q[0];
  const da = p[1] - q[1];
  const db = p[2] - q[2];
  return DELTA_E_SCALE * Math.sqrt(dL * dL + da * da + db * db);
}

/** The perceptual distance used throughout this library: ΔE_OK, Euclidean OKLab distance × 100. */
export function deltaE(a: Rgb, b: Rgb): number {
  return oklabDistance(rgbToOklab(a), rgbToOklab(b));
}

/** Chroma (colorfulness) in ΔE units. */
export function chroma(lab: Oklab): number {
  return DELTA_E_SCALE * Math.hypot(lab[1], lab[2]);
}

/** Hue angle in degrees, 0..360. */
export function hueDegrees(lab: Oklab): number {
  const h = (Math.atan2(lab[2], lab[1]) * 180) / Math.PI;
  return h < 0 ? h + 360 : h;
}
