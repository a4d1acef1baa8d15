import { deltaE } from './oklab';
import type { PaletteEntry, Rgb } from './types';

/**
 * Palette colors within this ΔE_OK of a counted color count as that color. 12 is a little wider than the palette
 * merge distance (8), so the cluster center of a noisy or shaded patch of the color still falls inside, while
 * neighbouring shades a person names differently (royal blue vs #1f4e9c, ΔE 13) stay outside.
 */
export const PRESENCE_DELTA_E = 12;

/**
 * "Contains the color in any proportion" (count_image_colors num_images_partial_area) needs at least this share.
 * 0.5 % of a 600×400 image is a 35×35 patch, a visible element; smaller shares are mostly anti-aliasing fringes
 * and compression noise, which would otherwise make every color "present" in every image. Palettes fold colors
 * under 1 % into their neighbours, so a color at 0.5-1 % is found only when it shares a cluster.
 */
export const PARTIAL_AREA_MIN_PERCENT = 0.5;

/**
 * "Mostly covered by the color" (num_images_full_area): at least half the counted area, the plain meaning of
 * "mostly"; only a tie of exactly 50 % lets a second color reach it too.
 */
export const FULL_AREA_MIN_PERCENT = 50;

/** The share of a palette's area within PRESENCE_DELTA_E of color, and whether it reaches the partial/full floors. */
export function colorPresence(
  palette: readonly PaletteEntry[],
  color: Rgb,
): { percent: number; partial: boolean; full: boolean } {
  const raw = palette.filter((e) => deltaE(e.rgb, color) <= PRESENCE_DELTA_E).reduce((s, e) => s + e.weight, 0);
  const percent = Math.round(raw * 100) / 100;
  return { percent, partial: percent >= PARTIAL_AREA_MIN_PERCENT, full: percent >= FULL_AREA_MIN_PERCENT };
}
