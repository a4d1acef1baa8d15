import { detectBackground } from './background';
import { classifyColor } from './classify';
import { binPixels } from './histogram';
import { compareHueOrder } from './hue-order';
import { kmeans, refineClusters } from './kmeans';
import { oklabToRgb } from './oklab';
import type { PaletteEntry, PaletteOptions, RgbImage, WeightedColor } from './types';
import { mergeClose, type WeightedLab } from './weighted-lab';
import { toPercentages } from './weights';

/** Spec 8: target_number_colors has a largest effective value of 10. */
export const MAX_TARGET_COLORS = 10;

/**
 * Clusters sought when no target is given. 8 leaves room for 6-8 significant colors in a busy image; surplus
 * clusters on a simple image fall to the merge and the significance floor below.
 */
export const DEFAULT_MAX_COLORS = 8;

/**
 * Clusters closer than this ΔE_OK are one color. 8 is about four just-noticeable differences: it joins the halves
 * of a noisy or softly shaded patch (measured 4-7 apart on ±16-level noise) but keeps distinct shades of one hue
 * (navy to royal blue is ΔE 29) apart.
 */
export const MERGE_DELTA_E = 8;

/**
 * A cluster under this share of the counted area is not a palette color: its pixels join the nearest kept color.
 * 1 % removes anti-aliasing fringes and noise outliers (a 600×400 image's edges between shapes are ~0.5 %)
 * while keeping any element a person would notice (1 % of 600×400 is a 49×49 patch).
 */
export const MIN_COLOR_PERCENT = 1;

/**
 * Extracts the dominant colors of an image: pixels binned and clustered by weighted k-means in OKLab, close
 * clusters merged, insignificant ones folded into their neighbours, weights as percentages of the counted area
 * (2 decimals, summing to 100), ranked by hue order. Empty when the background option leaves no pixel to count.
 */
export function extractPalette(img: RgbImage, opts: PaletteOptions = {}): PaletteEntry[] {
  const interior = opts.ignoreInteriorBackground === true;
  const exclude = opts.ignoreBackground || interior ? detectBackground(img, { interior }) : undefined;
  const bins = binPixels(img, exclude);
  if (bins.total === 0) return [];
  const points: WeightedLab[] = bins.labs.map((lab, i) => ({ lab, weight: bins.counts[i] }));
  const k = clusterCount(opts.targetColors);
  const merged = mergeClose(kmeans(points, k), MERGE_DELTA_E);
  const significant = merged.filter((c) => (100 * c.weight) / bins.total >= MIN_COLOR_PERCENT);
  const kept = significant.length > 0 ? significant : [heaviest(merged)];
  const final = mergeClose(
    refineClusters(
      points,
      kept.map((c) => c.lab),
    ),
    MERGE_DELTA_E,
  );
  return toPaletteEntries(final);
}

/** The palette of an image as a color-search query: its colors weighted by area. */
export function paletteFromImageForQuery(img: RgbImage, opts: PaletteOptions = {}): WeightedColor[] {
  return extractPalette(img, opts).map((e) => ({ rgb: e.rgb, weight: e.weight }));
}

/** Turns clusters (any mass unit) into ranked palette entries with percentage weights summing to 100. */
export function toPaletteEntries(clusters: readonly WeightedLab[]): PaletteEntry[] {
  const ordered = [...clusters].sort((a, b) => compareHueOrder(a.lab, b.lab));
  const weights = toPercentages(ordered.map((c) => c.weight));
  return ordered.map((c, i) => {
    const rgb = oklabToRgb(c.lab);
    return { rgb, weight: weights[i], class: classifyColor(rgb) };
  });
}

function clusterCount(target: number | undefined): number {
  if (target === undefined || !Number.isFinite(target)) return DEFAULT_MAX_COLORS;
  return Math.min(MAX_TARGET_COLORS, Math.max(1, Math.round(target)));
}

function heaviest(clusters: readonly WeightedLab[]): WeightedLab {
  return clusters.reduce((best, c) => (c.weight > best.weight ? c : best));
}
