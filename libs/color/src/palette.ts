import { detectBackground } from './background';
import { classifyColor } from './classify';
import { BIN_COUNT, binPixels } from './histogram';
import { compareHueOrder } from './hue-order';
import { refineClusters, seedCenters } from './kmeans';
import { oklabDistance, oklabToRgb, type Oklab } from './oklab';
import { findFlatRegions, type FlatRegion } from './regions';
import type { PaletteEntry, PaletteOptions, RgbImage, WeightedColor } from './types';
import { nearestIndex, weightedMean, type WeightedLab } from './weighted-lab';
import { toPercentages } from './weights';

/** docs/protocol.md §4: target_number_colors has a largest effective value of 10. */
export const MAX_TARGET_COLORS = 10;

/**
 * Colors sought when no target is given: the effective maximum, so a busy photo or a swatch grid keeps as many
 * colors as it has (up to 10); a simple image gives fewer, its surplus clusters falling to the merge and the
 * significance floor below.
 */
export const DEFAULT_MAX_COLORS = MAX_TARGET_COLORS;

/**
 * Clusters of the non-flat pixels (texture, shading, gradients, edges) closer than this ΔE_OK are one color when
 * their pixels are interleaved or meet softly (see mergeInterleaved). 8 is about four just-noticeable differences: it joins the
 * halves of a noisy or softly shaded patch (measured 4-7 apart on ±16-level noise). Flat colors never merge this way:
 * they are told apart by spatial coherence (`findFlatRegions`), so two flat shades 3 apart stay two colors.
 */
export const MERGE_DELTA_E = 8;

/**
 * Clusters of the non-flat pixels closer than this ΔE_OK are one color, whether or not their pixels mix: two just
 * noticeable differences, the split k-means makes inside one lit surface. Between this and MERGE_DELTA_E, clusters
 * merge only when their pixels are interleaved (noise, grain), so a photo keeps shades that lie in separate areas.
 */
export const SAME_TEXTURE_DELTA_E = 4;

/**
 * Two clusters are interleaved when the neighbour pairs (4-connected) joining them number at least this share of the
 * smaller cluster's pixels. Halves of a noisy color meet at about every pixel (share ≈ 1 or more); two areas that
 * touch along an edge meet at their perimeter only (a 100×100 area: 0.01); a 3-pixel stroke reaches 0.67.
 */
export const INTERLEAVE_MIN = 0.3;

/**
 * Two clusters meet softly when the pixels on either side of their common border differ on average by less than this
 * share of the distance between the clusters: a gradient or shading crosses the border in small steps (a ramp: a
 * few % of the distance), while an edge between two areas jumps (the whole distance, about half when JPEG or
 * resizing spreads it over two pixels). Soft neighbours under MERGE_DELTA_E are one shaded color.
 */
export const SOFT_EDGE_STEP = 0.3;

/** Images from this many pixels have their cluster adjacency counted on every other row (see mergeInterleaved). */
const ADJACENCY_SAMPLING_MIN_PIXELS = 150_000;

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
 *    are grouped by k-means, each group reported by its medoid (never an average of distinct flat colors).
 * 2. The rest (texture, shading, gradients, edges, small regions): binned and clustered by weighted k-means in OKLab
 *    with the flat colors as fixed centers, so edge and noise pixels of a flat region go back to it. Clusters that
 *    are one color spread by noise, grain or shading merge (mergeInterleaved: close, or interleaved, or meeting
 *    softly), those under 1 % are folded into their nearest neighbour, and each is reported by its medoid (the
 *    color of the rest nearest its centre).
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
  const { regions, blockLabel, block, gridWidth } = findFlatRegions(img, exclude);
  const groups = sameColorGroups(regions).filter((g) => g.weight >= minMass);
  const { colors: flat, groupOf } = atMost(groups, k);
  const flatOfRegion = new Int32Array(regions.length).fill(-1);
  groups.forEach((g, i) => g.regions.forEach((r) => (flatOfRegion[r] = groupOf[i])));
  // Per pixel: -1 excluded, the flat color's index, or (below) the cluster of its bin.
  const pixelCluster = new Int32Array(pixels);
  const restMask = new Uint8Array(pixels);
  const blockFlat = new Int32Array(blockLabel.length);
  for (let g = 0; g < blockLabel.length; g++) blockFlat[g] = blockLabel[g] >= 0 ? flatOfRegion[blockLabel[g]] : -1;
  const { width, height } = img;
  for (let y = 0; y < height; y++) {
    const row = ((y / block) | 0) * gridWidth;
    for (let gx = 0; gx < gridWidth; ) {
      const flatIndex = blockFlat[row + gx];
      const runStart = gx;
      while (gx < gridWidth && blockFlat[row + gx] === flatIndex) gx++;
      if (flatIndex < 0) continue;
      // A run of blocks of one flat color.
      const x0 = y * width + runStart * block;
      const x1 = y * width + Math.min(width, gx * block);
      pixelCluster.fill(flatIndex, x0, x1);
      restMask.fill(1, x0, x1);
    }
  }
  if (exclude) {
    for (let p = 0; p < pixels; p++) {
      if (!exclude[p]) continue;
      pixelCluster[p] = -1;
      restMask[p] = 1;
    }
  }
  const pixelBin = new Int32Array(pixels);
  const bins = binPixels(img, restMask, pixelBin);
  const points: WeightedLab[] = bins.labs.map((lab, i) => ({ lab, weight: bins.counts[i] }));
  const fixed = flat.map((c) => c.lab);

  // 2. The rest, around the flat colors.
  const clusters = refineClusters(points, seedCenters(points, Math.max(k, fixed.length), fixed), fixed.length);
  const centers = clusters.map((c) => c.lab);
  const binCluster = new Int32Array(BIN_COUNT);
  bins.keys.forEach((key, i) => (binCluster[key] = nearestIndex(bins.labs[i], centers)));
  for (let p = 0; p < pixels; p++) if (!restMask[p]) pixelCluster[p] = binCluster[pixelBin[p]];
  let free = mergeInterleaved(clusters, fixed.length, pixelCluster, img);
  const flatMass = flat.map((c) => c.weight);
  // Significance counts the whole area a color would hold: its flat pixels and the rest pixels nearest to it.
  const mass = massByNearest(points, [...fixed, ...free.map((c) => c.lab)]);
  free = free.filter((_, i) => mass[fixed.length + i] >= minMass);
  if (fixed.length === 0 && free.length === 0) free = [heaviest(clusters)];
  const final = refineClusters(points, [...fixed, ...free.map((c) => c.lab)], fixed.length);
  const medoids = medoidsOf(points, final.map((c) => c.lab));
  const entries: WeightedLab[] = final.map((c, i) =>
    i < fixed.length ? { lab: c.lab, weight: c.weight + flatMass[i] } : { lab: medoids[i], weight: c.weight },
  );
  return toPaletteEntries(entries.filter((e) => e.weight > 0));
}

/**
 * Merges clusters of the non-flat pixels that are one color spread by noise, grain or texture, closest pair first:
 * pairs under SAME_TEXTURE_DELTA_E, and pairs under MERGE_DELTA_E whose pixels are interleaved (neighbours of each
 * other over at least INTERLEAVE_MIN of the smaller one's pixels, as the two halves of a noisy color are), while
 * two areas of close colors that only meet along an edge stay apart. A cluster joining a flat color takes no part in
 * its color (the flat region's color is the color of its pixels). Returns the clusters after the first `fixedCount`
 * (the flat colors), with their masses of non-flat pixels.
 */
function mergeInterleaved(clusters: readonly WeightedLab[], fixedCount: number, pixelCluster: Int32Array, img: RgbImage): WeightedLab[] {
  const K = clusters.length;
  const { width, data } = img;
  const adjacent = new Float64Array(K * K);
  // Sum over those neighbour pairs of the pixels' own color difference (sRGB levels, summed over the channels).
  const step = new Float64Array(K * K);
  const size = new Float64Array(K);
  const n = pixelCluster.length;
  const meet = (a: number, b: number, p: number, q: number) => {
    const d = Math.abs(data[3 * p] - data[3 * q]) + Math.abs(data[3 * p + 1] - data[3 * q + 1]) + Math.abs(data[3 * p + 2] - data[3 * q + 2]);
    adjacent[a * K + b]++;
    adjacent[b * K + a]++;
    step[a * K + b] += d;
    step[b * K + a] += d;
  };
  // Every other row of a large image is enough: the counts are compared as ratios, and the rows sampled hold
  // thousands of pixels of any cluster that matters (1 % of the image).
  const height = n / width;
  const rowStep = n >= ADJACENCY_SAMPLING_MIN_PIXELS ? 2 : 1;
  for (let y = 0; y < height; y += rowStep) {
    const rowEnd = (y + 1) * width - 1;
    const below = y < height - 1 ? width : 0;
    for (let p = y * width; p <= rowEnd; p++) {
      const a = pixelCluster[p];
      if (a < 0) continue;
      size[a]++;
      if (p < rowEnd) {
        const b = pixelCluster[p + 1];
        if (b >= 0 && b !== a) meet(a, b, p, p + 1);
      }
      if (below) {
        const b = pixelCluster[p + below];
        if (b >= 0 && b !== a) meet(a, b, p, p + below);
      }
    }
  }
  const items = clusters.map((c) => ({ lab: c.lab, weight: c.weight }));
  const alive = clusters.map(() => true);
  for (;;) {
    let bi = -1;
    let bj = -1;
    let bestD = MERGE_DELTA_E;
    for (let j = fixedCount; j < K; j++) {
      if (!alive[j]) continue;
      for (let i = 0; i < j; i++) {
        if (!alive[i]) continue;
        const d = oklabDistance(items[i].lab, items[j].lab);
        if (d >= bestD) continue;
        const pairs = adjacent[i * K + j];
        const interleaved = pairs >= INTERLEAVE_MIN * Math.min(size[i], size[j]);
        const soft = pairs > 0 && step[i * K + j] / pairs < SOFT_EDGE_STEP * rgbDistance(items[i].lab, items[j].lab);
        if (d < SAME_TEXTURE_DELTA_E || interleaved || soft) {
          bestD = d;
          bi = i;
          bj = j;
        }
      }
    }
    if (bi < 0) break;
    if (bi >= fixedCount) items[bi].lab = weightedMean([items[bi], items[bj]]);
    items[bi].weight += items[bj].weight;
    size[bi] += size[bj];
    for (let t = 0; t < K; t++) {
      adjacent[bi * K + t] += adjacent[bj * K + t];
      adjacent[t * K + bi] += adjacent[t * K + bj];
      step[bi * K + t] += step[bj * K + t];
      step[t * K + bi] += step[t * K + bj];
    }
    adjacent[bi * K + bi] = 0;
    step[bi * K + bi] = 0;
    alive[bj] = false;
  }
  return items.filter((_, i) => i >= fixedCount && alive[i]);
}

/** Distance of two colors in sRGB levels summed over the channels (the unit of the pixel steps it is compared with). */
function rgbDistance(a: Oklab, b: Oklab): number {
  const p = oklabToRgb(a);
  const q = oklabToRgb(b);
  return Math.abs(p[0] - q[0]) + Math.abs(p[1] - q[1]) + Math.abs(p[2] - q[2]);
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
 * At most k flat colors: with more, weighted k-means over them, each cluster reported by its medoid (a color of the
 * image, the member nearest the others by mass) with the cluster's whole mass. groupOf maps each input color to its output color.
 */
function atMost(colors: readonly FlatColor[], k: number): { colors: WeightedLab[]; groupOf: number[] } {
  if (colors.length <= k) return { colors: colors.map((c) => ({ lab: c.lab, weight: c.weight })), groupOf: colors.map((_, i) => i) };
  const centers = refineClusters(colors, seedCenters(colors, k)).map((c) => c.lab);
  const assigned = colors.map((c) => nearestIndex(c.lab, centers));
  const used = [...new Set(assigned)].sort((a, b) => a - b);
  const out = used.map((center) => {
    const members = colors.filter((_, i) => assigned[i] === center);
    // The medoid: the member color with the least mass-weighted distance to the others, a color of the image.
    const cost = (m: FlatColor) => members.reduce((s, o) => s + o.weight * oklabDistance(m.lab, o.lab), 0);
    const medoid = members.reduce((best, m) => (cost(m) < cost(best) ? m : best));
    return { lab: medoid.lab, weight: members.reduce((s, m) => s + m.weight, 0) };
  });
  return { colors: out, groupOf: assigned.map((center) => used.indexOf(center)) };
}

/** Mass of the points nearest to each center. */
function massByNearest(points: readonly WeightedLab[], centers: readonly Oklab[]): number[] {
  const mass = centers.map(() => 0);
  for (const p of points) mass[nearestIndex(p.lab, centers)] += p.weight;
  return mass;
}

/** For each center, the point nearest to it among the points nearest to it: a color that is in the image. */
function medoidsOf(points: readonly WeightedLab[], centers: readonly Oklab[]): Oklab[] {
  const best = [...centers];
  const bestD = centers.map(() => Infinity);
  for (const p of points) {
    const i = nearestIndex(p.lab, centers);
    const d = oklabDistance(p.lab, centers[i]);
    if (d < bestD[i]) {
      bestD[i] = d;
      best[i] = p.lab;
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
