import { detectBackground } from './background';
import { classifyColor } from './classify';
import { binPixels } from './histogram';
import { compareHueOrder } from './hue-order';
import { refineClusters, seedCenters } from './kmeans';
import { oklabDistance, oklabToRgb, type Oklab } from './oklab';
import { findFlatRegions, type FlatRegion } from './regions';
import type { PaletteEntry, PaletteOptions, RgbImage, WeightedColor } from './types';
import { mergeClose, nearestIndex, weightedMean, type WeightedLab } from './weighted-lab';
import { toPercentages } from './weights';

/** Spec 8: target_number_colors has a largest effective value of 10. */
export const MAX_TARGET_COLORS = 10;

/**
 * Colors sought when no target is given: the effective maximum, so a busy photo or a swatch grid keeps as many
 * colors as it has (up to 10); a simple image gives fewer, its surplus clusters falling to the merge and the
 * significance floor below.
 */
export const DEFAULT_MAX_COLORS = MAX_TARGET_COLORS;

/**
 * Clusters of the non-flat pixels (texture, shading, gradients, edges) closer than this ΔE_OK are one color. 8 is
 * about four just-noticeable differences: it joins the halves of a noisy or softly shaded patch (measured 4-7 apart
 * on ±16-level noise). Flat colors never pass through this merge: they are told apart by spatial coherence
 * (`findFlatRegions`), so two flat shades 3 apart stay two colors.
 */
export const MERGE_DELTA_E = 8;

/**
 * Flat regions whose colors are closer than this ΔE_OK are one color shown in several places (a background split by
 * shapes, one swatch used twice): half the smallest difference kept apart (3), and far above the error of a region's
 * mean color under noise (< 0.2 for a region of 0.2 % of the image).
 */
export const SAME_FLAT_DELTA_E = 1.5;

/**
 * A color under this share of the counted area is not a palette color: its pixels join the nearest kept color.
 * 1 % removes anti-aliasing fringes and noise outliers (a 600×400 image's edges between shapes are ~0.5 %)
 * while keeping any element a person would notice (1 % of 600×400 is a 49×49 patch).
 */
export const MIN_COLOR_PERCENT = 1;

/**
 * Extracts the dominant colors of an image (weights as percentages of the counted area, 2 decimals, summing to 100,
 * ranked by hue order); empty when the background option leaves no pixel to count.
 *
 * 1. Flat colors: connected regions of one color, however noisy (`findFlatRegions`), each reported at the mean of
 *    its own pixels; regions of the same color join; those of at least 1 % are palette colors. More than the target
 *    are grouped by k-means, each group reported by its largest color (never an average of distinct flat colors).
 * 2. The rest (texture, shading, gradients, edges, small regions): binned and clustered by weighted k-means in OKLab
 *    with the flat colors as fixed centers, so edge and noise pixels of a flat region go back to it. Clusters of the
 *    rest closer than MERGE_DELTA_E merge, those near a flat color join it, those under 1 % are folded into their
 *    nearest neighbour, and each is reported by its medoid (the color of the rest nearest its centre).
 */
export function extractPalette(img: RgbImage, opts: PaletteOptions = {}): PaletteEntry[] {
  const interior = opts.ignoreInteriorBackground === true;
  const exclude = opts.ignoreBackground || interior ? detectBackground(img, { interior }) : undefined;
  const pixels = img.width * img.height;
  let counted = pixels;
  if (exclude) for (let p = 0; p < pixels; p++) if (exclude[p]) counted--;
  if (counted === 0) return [];
  const k = clusterCount(opts.targetColors);
  const minMass = (MIN_COLOR_PERCENT / 100) * counted;

  // 1. Flat colors.
  const { regions, label } = findFlatRegions(img, exclude);
  const groups = sameColorGroups(regions).filter((g) => g.weight >= minMass);
  const { colors: flat, groupOf } = atMost(groups, k);
  const flatOfRegion = new Int32Array(regions.length).fill(-1);
  groups.forEach((g, i) => g.regions.forEach((r) => (flatOfRegion[r] = groupOf[i])));
  const restMask = new Uint8Array(pixels);
  for (let p = 0; p < pixels; p++) restMask[p] = (exclude && exclude[p]) || (label[p] >= 0 && flatOfRegion[label[p]] >= 0) ? 1 : 0;
  const bins = binPixels(img, restMask);
  const points: WeightedLab[] = bins.labs.map((lab, i) => ({ lab, weight: bins.counts[i] }));
  const fixed = flat.map((c) => c.lab);

  // 2. The rest, around the flat colors.
  const clusters = refineClusters(points, seedCenters(points, Math.max(k, fixed.length), fixed), fixed.length);
  let free = mergeClose(clusters.slice(fixed.length), MERGE_DELTA_E).filter(
    (c) => !fixed.some((f) => oklabDistance(f, c.lab) < MERGE_DELTA_E),
  );
  const flatMass = flat.map((c) => c.weight + 0);
  // Significance counts the whole area a color would hold: its flat pixels and the rest pixels nearest to it.
  const mass = massByNearest(points, [...fixed, ...free.map((c) => c.lab)]);
  free = free.filter((_, i) => mass[fixed.length + i] >= minMass);
  if (fixed.length === 0 && free.length === 0) free = [heaviest(clusters)];
  const final = refineClusters(points, [...fixed, ...free.map((c) => c.lab)], fixed.length);
  const entries: WeightedLab[] = final.map((c, i) =>
    i < fixed.length ? { lab: c.lab, weight: c.weight + flatMass[i] } : { lab: medoid(points, final, i), weight: c.weight },
  );
  return toPaletteEntries(entries.filter((e) => e.weight > 0));
}

/** A color shown by flat regions: their pixel-weighted mean, total pixels, and the regions. */
interface FlatColor extends WeightedLab {
  regions: number[];
}

/** Groups flat regions of one color (within SAME_FLAT_DELTA_E of the group's largest region), largest first. */
function sameColorGroups(regions: readonly FlatRegion[]): FlatColor[] {
  const order = regions.map((_, i) => i).sort((a, b) => regions[b].count - regions[a].count || a - b);
  const groups: Array<FlatColor & { anchor: Oklab }> = [];
  for (const r of order) {
    const { lab, count } = regions[r];
    const group = groups.find((g) => oklabDistance(g.anchor, lab) < SAME_FLAT_DELTA_E);
    if (group) {
      group.lab = weightedMean([group, { lab, weight: count }]);
      group.weight += count;
      group.regions.push(r);
    } else {
      groups.push({ lab, weight: count, regions: [r], anchor: lab });
    }
  }
  return groups;
}

/**
 * At most k flat colors: with more, weighted k-means over them, each cluster reported by its largest member (a color
 * of the image) with the cluster's whole mass. groupOf maps each input color to its output color.
 */
function atMost(colors: readonly FlatColor[], k: number): { colors: WeightedLab[]; groupOf: number[] } {
  if (colors.length <= k) return { colors: colors.map((c) => ({ lab: c.lab, weight: c.weight })), groupOf: colors.map((_, i) => i) };
  const centers = refineClusters(colors, seedCenters(colors, k)).map((c) => c.lab);
  const assigned = colors.map((c) => nearestIndex(c.lab, centers));
  const used = [...new Set(assigned)].sort((a, b) => a - b);
  const out = used.map((center) => {
    const members = colors.filter((_, i) => assigned[i] === center);
    return { lab: heaviest(members).lab, weight: members.reduce((s, m) => s + m.weight, 0) };
  });
  return { colors: out, groupOf: assigned.map((center) => used.indexOf(center)) };
}

/** Mass of the points nearest to each center. */
function massByNearest(points: readonly WeightedLab[], centers: readonly Oklab[]): number[] {
  const mass = centers.map(() => 0);
  for (const p of points) mass[nearestIndex(p.lab, centers)] += p.weight;
  return mass;
}

/** The point, among those nearest to cluster `index`, closest to its centre: a color that is in the image. */
function medoid(points: readonly WeightedLab[], clusters: readonly WeightedLab[], index: number): Oklab {
  const centers = clusters.map((c) => c.lab);
  let best = centers[index];
  let bestD = Infinity;
  for (const p of points) {
    if (nearestIndex(p.lab, centers) !== index) continue;
    const d = oklabDistance(p.lab, centers[index]);
    if (d < bestD) {
      bestD = d;
      best = p.lab;
    }
  }
  return best;
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
