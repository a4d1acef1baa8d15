import { classifyColor, colorSearchScore, deltaE, extractPalette, PaletteEntry, PRESENCE_DELTA_E, Rgb } from '@loupe/color';
import type { RgbImage } from '@loupe/imaging';
import { cropImage } from '@loupe/imaging';
import type { ColorDiff, Rect } from '../contracts';

/** Palette colors below this share of the matched area are noise, not a color difference a person would see. */
const MIN_DIFF_WEIGHT = 3;

function regionOf(img: RgbImage, rect: Rect): RgbImage {
  const box = {
    left: Math.floor((rect.left / 100) * img.width),
    right: Math.max(Math.floor((rect.left / 100) * img.width) + 1, Math.ceil((rect.right / 100) * img.width)),
    top: Math.floor((rect.top / 100) * img.height),
    bottom: Math.max(Math.floor((rect.top / 100) * img.height) + 1, Math.ceil((rect.bottom / 100) * img.height)),
  };
  return cropImage(img, {
    left: Math.max(0, box.left),
    top: Math.max(0, box.top),
    right: Math.min(img.width, box.right),
    bottom: Math.min(img.height, box.bottom),
  });
}

function missingFrom(palette: PaletteEntry[], other: PaletteEntry[]): ColorDiff[] {
  return palette
    .filter((entry) => entry.weight >= MIN_DIFF_WEIGHT && other.every((o) => deltaE(entry.rgb, o.rgb) > PRESENCE_DELTA_E))
    .map((entry) => ({ color: [...entry.rgb], class: classifyColor(entry.rgb as Rgb) }));
}

/**
 * Color comparison of the matched regions of two images (compare's `compare_color`). `score_color` is the color
 * search score of one region's palette against the other's (0-100, libs/color); `color_percent_diff` is its
 * complement, the share of the matched area whose color has no close counterpart in the other image. The diff lists
 * name the palette colors (≥ 3 % of the region) that the other region lacks.
 */
export function compareColors(query: RgbImage, target: RgbImage, queryRect: Rect, targetRect: Rect) {
  const queryPalette = extractPalette(regionOf(query, queryRect));
  const targetPalette = extractPalette(regionOf(target, targetRect));
  const score = colorSearchScore(queryPalette.map((e) => ({ rgb: e.rgb, weight: e.weight })), targetPalette);
  const rounded = Math.round(score * 10) / 10;
  return {
    score_color: rounded,
    compare_color: {
      color_percent_diff: Math.round((100 - rounded) * 10) / 10,
      query_colors_diff: missingFrom(queryPalette, targetPalette),
      target_colors_diff: missingFrom(targetPalette, queryPalette),
    },
  };
}
