import { oklabDistance, type Oklab } from './oklab';

/** A color with a mass (pixel count or percentage): the unit that clustering and merging move around. */
export interface WeightedLab {
  lab: Oklab;
  weight: number;
}

/** Index of the center nearest to lab. */
export function nearestIndex(lab: Oklab, centers: readonly Oklab[]): number {
  let best = 0;
  let bestD = Infinity;
  for (let i = 0; i < centers.length; i++) {
    const d = oklabDistance(lab, centers[i]);
    if (d < bestD) {
      bestD = d;
      best = i;
    }
  }
  return best;
}

/** Mass-weighted mean of colors. */
export function weightedMean(items: readonly WeightedLab[]): Oklab {
  let w = 0;
  let L = 0;
  let a = 0;
  let b = 0;
  for (const it of items) {
    w += it.weight;
    L += it.weight * it.lab[0];
    a += it.weight * it.lab[1];
    b += it.weight * it.lab[2];
  }
  return w > 0 ? [L / w, a / w, b / w] : [0, 0, 0];
}
