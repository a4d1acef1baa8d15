import { chroma, hueDegrees, type Oklab } from './oklab';

/**
 * Colors with less chroma than this (ΔE units) are treated as greys when ranking: their hue angle is noise.
 * 4 is about where a swatch stops looking tinted next to a neutral grey.
 */
export const ACHROMATIC_CHROMA = 4;

/** Greys at or below this OKLab lightness rank first (with black), lighter ones last (with white): mid-grey 0.6. */
const DARK_LIGHT_SPLIT = 0.6;

/**
 * Where the hue wheel is cut. OKLab hue 0° lies between pink-magenta (~350°) and red (~25°): cutting there ranks
 * red, orange, yellow, green, blue, violet, pink, the rank order of docs/protocol.md §8.
 */
const HUE_ORIGIN_DEGREES = 0;

/**
 * Rank order of docs/protocol.md §8: dark greys first (darkest first), then chromatic colors by hue angle from the
 * origin (darker first within one hue), then light greys (white last). Returns a negative number when a ranks before b.
 */
export function compareHueOrder(a: Oklab, b: Oklab): number {
  const ka = sortKey(a);
  const kb = sortKey(b);
  return ka[0] - kb[0] || ka[1] - kb[1] || ka[2] - kb[2];
}

function sortKey(lab: Oklab): [group: number, primary: number, secondary: number] {
  if (chroma(lab) < ACHROMATIC_CHROMA) return lab[0] <= DARK_LIGHT_SPLIT ? [0, lab[0], 0] : [2, lab[0], 0];
  const hue = (hueDegrees(lab) - HUE_ORIGIN_DEGREES + 360) % 360;
  return [1, hue, lab[0]];
}
