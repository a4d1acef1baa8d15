import { applyHomography, imageCorners, isConvex, normalize, signedArea, type Homography } from './geometry';

/**
 * Largest accepted scale between target and query, per axis. Queries at 0.3x and 2x of a 600 px image
 * plus a 25 % crop need ~4x; 6x leaves margin, beyond it a "match" is a few pixels blown up.
 */
const MAX_SCALE = 6;
/**
 * Largest change of the projective denominator across the target: 0.5 allows a tilt that halves one
 * side (a label photographed at ~45°); larger values are almost always RANSAC fitting noise.
 */
const MAX_PERSPECTIVE = 0.5;

/**
 * Rejects degenerate or implausible target→query homographies: near-singular, mirroring, folded
 * (non-convex projected outline), scale outside [1/MAX_SCALE, MAX_SCALE], or strong perspective.
 */
export function isPlausibleTransform(h: Homography, targetWidth: number, targetHeight: number): boolean {
  if (h.some((v) => !Number.isFinite(v))) return false;
  const n = normalize(h);
  if (Math.abs(n[6]) * targetWidth + Math.abs(n[7]) * targetHeight > MAX_PERSPECTIVE) return false;
  const outline = imageCorners(targetWidth, targetHeight).map(([x, y]) => applyHomography(n, x, y));
  if (!isConvex(outline)) return false;
  const areaRatio = signedArea(outline) / (targetWidth * targetHeight);
  // Negative area: the outline runs the other way round, i.e. a mirror, which descriptors cannot produce.
  return areaRatio >= 1 / (MAX_SCALE * MAX_SCALE) && areaRatio <= MAX_SCALE * MAX_SCALE;
}
