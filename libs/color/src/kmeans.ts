import { oklabDistance, type Oklab } from './oklab';
import type { WeightedLab } from './weighted-lab';

/** Lloyd iterations stop earlier when no point changes cluster; on binned images that takes 5-15 rounds. */
const MAX_ITERATIONS = 30;

/**
 * Deterministic k-means++ seeding: the first center is the heaviest point, each next one the point with the
 * largest mass × squared distance to its nearest center (the k-means++ sampling weight, taken greedily instead of
 * at random so the same image always gives the same palette). Given fixed centers, those come first and the new
 * ones are chosen far from them.
 */
export function seedCenters(points: readonly WeightedLab[], k: number, fixed: readonly Oklab[] = []): Oklab[] {
  if (points.length === 0) return [...fixed];
  const centers: Oklab[] = [...fixed];
  if (centers.length === 0) {
    let first = 0;
    for (let i = 1; i < points.length; i++) if (points[i].weight > points[first].weight) first = i;
    centers.push(points[first].lab);
  }
  const nearestD = points.map((p) => Math.min(...centers.map((c) => oklabDistance(p.lab, c))));
  while (centers.length < k) {
    let pick = -1;
    let pickScore = 0;
    for (let i = 0; i < points.length; i++) {
      const score = points[i].weight * nearestD[i] * nearestD[i];
      if (score > pickScore) {
        pickScore = score;
        pick = i;
      }
    }
    if (pick < 0) break; // every point already coincides with a center
    centers.push(points[pick].lab);
    for (let i = 0; i < points.length; i++) {
      nearestD[i] = Math.min(nearestD[i], oklabDistance(points[i].lab, points[pick].lab));
    }
  }
  return centers;
}

/**
 * Weighted Lloyd iterations from the given centers; returns the clusters (centers with their mass). The first
 * `fixedCount` centers do not move and are always returned, in order, even with no mass (they are colors already
 * known, such as flat regions, whose own pixels are counted elsewhere); the others are returned when not empty.
 * Typed arrays throughout: this runs over every color bin of every image, ~10 centers × 10-30 rounds.
 */
export function refineClusters(points: readonly WeightedLab[], initial: readonly Oklab[], fixedCount = 0): WeightedLab[] {
  const n = points.length;
  const labs = new Float64Array(3 * n);
  const weights = new Float64Array(n);
  points.forEach((p, i) => {
    labs[3 * i] = p.lab[0];
    labs[3 * i + 1] = p.lab[1];
    labs[3 * i + 2] = p.lab[2];
    weights[i] = p.weight;
  });
  let k = initial.length;
  let centers = new Float64Array(3 * k);
  initial.forEach((c, j) => centers.set(c, 3 * j));
  const assignment = new Int32Array(n).fill(-1);
  for (let iter = 0; iter < MAX_ITERATIONS; iter++) {
    let changed = false;
    for (let i = 0; i < n; i++) {
      const j = nearestCenter(labs, i, centers, k);
      if (j !== assignment[i]) {
        assignment[i] = j;
        changed = true;
      }
    }
    const sums = new Float64Array(3 * k);
    const mass = new Float64Array(k);
    for (let i = 0; i < n; i++) {
      const j = assignment[i];
      const w = weights[i];
      sums[3 * j] += w * labs[3 * i];
      sums[3 * j + 1] += w * labs[3 * i + 1];
      sums[3 * j + 2] += w * labs[3 * i + 2];
      mass[j] += w;
    }
    const next: number[] = [];
    for (let j = 0; j < k; j++) {
      if (j < fixedCount) next.push(centers[3 * j], centers[3 * j + 1], centers[3 * j + 2]);
      else if (mass[j] > 0) next.push(sums[3 * j] / mass[j], sums[3 * j + 1] / mass[j], sums[3 * j + 2] / mass[j]);
    }
    if (next.length !== 3 * k) {
      // An emptied cluster shifts indices: assign again.
      changed = true;
      assignment.fill(-1);
    }
    centers = Float64Array.from(next);
    k = next.length / 3;
    if (!changed) break;
  }
  const mass = new Float64Array(k);
  for (let i = 0; i < n; i++) mass[nearestCenter(labs, i, centers, k)] += weights[i];
  const out: WeightedLab[] = [];
  for (let j = 0; j < k; j++) {
    if (j < fixedCount || mass[j] > 0) out.push({ lab: [centers[3 * j], centers[3 * j + 1], centers[3 * j + 2]], weight: mass[j] });
  }
  return out;
}

/** Index of the center nearest to point i (first on ties, like nearestIndex). */
function nearestCenter(labs: Float64Array, i: number, centers: Float64Array, k: number): number {
  const L = labs[3 * i];
  const A = labs[3 * i + 1];
  const B = labs[3 * i + 2];
  let best = 0;
  let bestD = Infinity;
  for (let j = 0; j < k; j++) {
    const dL = L - centers[3 * j];
    const dA = A - centers[3 * j + 1];
    const dB = B - centers[3 * j + 2];
    const d = dL * dL + dA * dA + dB * dB;
    if (d < bestD) {
      bestD = d;
      best = j;
    }
  }
  return best;
}

/** Weighted k-means with deterministic seeding. */
export function kmeans(points: readonly WeightedLab[], k: number): WeightedLab[] {
  return refineClusters(points, seedCenters(points, k));
}
