import { rgbToOklab } from './oklab';
import { MERGE_DELTA_E, toPaletteEntries } from './palette';
import type { PaletteEntry } from './types';
import { mergeClose } from './weighted-lab';

/**
 * Combines per-image palettes into one list (extract_image_colors with several images, extract_collection_colors):
 * each image counts equally (its weights scaled to 1/number of images), colors closer than MERGE_DELTA_E merge
 * across images, the `limit` heaviest colors are kept (0 = all), and those are renormalised to sum to 100 and
 * ranked by hue order. Keeping the heaviest before ranking means a limit drops the least present colors rather
 * than whatever sorts last by hue (the whites).
 */
export function combinePalettes(palettes: readonly (readonly PaletteEntry[])[], limit = 0): PaletteEntry[] {
  const nonEmpty = palettes.filter((p) => p.length > 0);
  const items = nonEmpty.flatMap((palette) => {
    const total = palette.reduce((s, e) => s + e.weight, 0);
    return palette.map((e) => ({ lab: rgbToOklab(e.rgb), weight: total > 0 ? e.weight / total / nonEmpty.length : 0 }));
  });
  const merged = mergeClose(items, MERGE_DELTA_E).sort((a, b) => b.weight - a.weight);
  return toPaletteEntries(limit > 0 ? merged.slice(0, limit) : merged);
}
