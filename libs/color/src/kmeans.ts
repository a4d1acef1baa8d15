import { oklabDistance, type Oklab } from './oklab';
import { nearestIndex, weightedMean, type WeightedLab } from './weighted-lab';

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
 */
export function refineClusters(points: readonly WeightedLab[], initial: readonly Oklab[], fixedCount = 0): WeightedLab[] {
  let centers = [...initial];
  let assignment = new Int32Array(points.length).fill(-1);
  for (let iter = 0; iter < MAX_ITERATIONS; iter++) {
    let changed = false;
    const next = new Int32Array(points.length);
    for (let i = 0; i < points.length; i++) {
      next[i] = nearestIndex(points[i].lab, centers);
      if (next[i] !== assignment[i]) changed = true;
    }
    assignment = next;
    const members: WeightedLab[][] = centers.map(() => []);
    for (let i = 0; i < points.length; i++) members[assignment[i]].push(points[i]);
    const kept = members.map((m, c) => ({ m, c })).filter(({ m, c }) => c < fixedCount || m.length > 0);
    centers = kept.map(({ m, c }) => (c < fixedCount ? centers[c] : weightedMean(m)));
    if (kept.length !== members.length) changed = true; // an emptied cluster shifts indices: assign again
    if (!changed) break;
  }
  const mass = centers.map(() => 0);
  for (let i = 0; i < points.length; i++) mass[nearestIndex(points[i].lab, centers)] += points[i].weight;
  return centers.map((lab, i) => ({ lab, weight: mass[i] })).filter((c, i) => i < fixedCount || c.weight > 0);
}

/** Weighted k-means with deterministic seeding. */
export function kmeans(points: readonly WeightedLab[], k: number): WeightedLab[] {
  return refineClusters(points, seedCenters(points, k));
}
