import { COLOR_CLASSES } from './data/color-classes';
import { oklabDistance, rgbToOklab, type Oklab } from './oklab';
import { parseColor } from './color-format';
import type { Rgb } from './types';

/** The 29 class names, in the order of docs/protocol.md §8. */
export const COLOR_CLASS_NAMES: readonly string[] = COLOR_CLASSES.map((c) => c.name);

/**
 * A color whose second-nearest class is at most this much farther than its nearest one sits on a boundary and
 * gets both names. 1.15 means "within 15 %": at that margin the two swatches look about equally apt to a
 * person, while colors well inside a region (ratio typically > 1.5) keep a single name.
 */
export const CLASS_BOUNDARY_RATIO = 1.15;

interface Prototype {
  name: string;
  lab: Oklab;
}

const PROTOTYPES: readonly Prototype[] = COLOR_CLASSES.flatMap((c) =>
  c.prototypes.map((hex) => ({ name: c.name, lab: rgbToOklab(parseColor(hex).rgb) })),
);

/** Names the class of a color; two comma-separated names (nearest first) when it sits near a class boundary. */
export function classifyColor(rgb: Rgb): string {
  const lab = rgbToOklab(rgb);
  const nearest = new Map<string, number>();
  for (const p of PROTOTYPES) {
    const d = oklabDistance(lab, p.lab);
    const known = nearest.get(p.name);
    if (known === undefined || d < known) nearest.set(p.name, d);
  }
  const ranked = [...nearest.entries()].sort((x, y) => x[1] - y[1]);
  const [first, second] = ranked;
  return second[1] <= first[1] * CLASS_BOUNDARY_RATIO ? `${first[0]},${second[0]}` : first[0];
}
