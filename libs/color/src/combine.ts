import { oklabDistance, rgbToOklab } from './oklab';
import { toPaletteEntries } from './palette';
import type { PaletteEntry } from './types';
import type { WeightedLab } from './weighted-lab';

/**
 * Colors of different images closer than this are one color: the same ink or brand color measured in two files (JPEG
 * and resizing move it by 1-2). Below the ΔE_OK 3 at which a designer's two shades must stay two.
 */
export const SAME_COLOR_ACROSS_IMAGES_DELTA_E = 3;

/**
 * Greedy grouping around the heaviest colors: each color joins the nearest heavier kept color within maxDeltaE, else
 * it is kept itself. A group is reported at its heaviest member's color, which is a color of an image, never the
 * average of colors from images that share no pixel; and since distances are taken to that fixed color, a chain of
 * near shades cannot pull far ones together.
 */
function groupAroundHeaviest(items: readonly WeightedLab[], maxDeltaE: number): WeightedLab[] {
  const kept: WeightedLab[] = [];
  for (const item of [...items].sort((a, b) => b.weight - a.weight)) {
    let nearest = -1;
    let nearestDistance = maxDeltaE;
    for (let i = 0; i < kept.length; i++) {
      const d = oklabDistance(item.lab, kept[i].lab);
      if (d < nearestDistance) {
        nearestDistance = d;
        nearest = i;
      }
    }
    if (nearest < 0) kept.push({ lab: item.lab, weight: item.weight });
    else kept[nearest].weight += item.weight;
  }
  return kept;
}

/**
 * Combines per-image palettes into one list (extract_image_colors with several images, extract_collection_colors):
 * each image counts equally (its weights scaled to 1/number of images), colors closer than
 * SAME_COLOR_ACROSS_IMAGES_DELTA_E are one color (reported at the heaviest one's color), the `limit` heaviest colors are kept (0 = all), and those are renormalised to sum to 100 and
 * ranked by hue order. Keeping the heaviest before ranking means a limit drops the least present colors rather
 * than whatever sorts last by hue (the whites).
 */
export function combinePalettes(palettes: readonly (readonly PaletteEntry[])[], limit = 0): PaletteEntry[] {
  const nonEmpty = palettes.filter((p) => p.length > 0);
  const items = nonEmpty.flatMap((palette) => {
    const total = palette.reduce((s, e) => s + e.weight, 0);
    return palette.map((e) => ({ lab: rgbToOklab(e.rgb), weight: total > 0 ? e.weight / total / nonEmpty.length : 0 }));
  });
  const merged = groupAroundHeaviest(items, SAME_COLOR_ACROSS_IMAGES_DELTA_E).sort((a, b) => b.weight - a.weight);
  return toPaletteEntries(limit > 0 ? merged.slice(0, limit) : merged);
}
