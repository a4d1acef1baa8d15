import { applyHomography, clipToRect, imageCorners, insideConvex, invert, signedArea, type Homography, type Point } from './geometry';
import type { Features, MatchResult, Rect } from './types';

/**
 * Inlier count at which the score reaches 63 % (1 - 1/e). 30 geometrically consistent ORB points are
 * already near-certain evidence (unrelated images stay under ~12), so the score saturates above ~100.
 */
export const SCORE_INLIER_SCALE = 30;

/** score = 100 * (1 - exp(-inliers / SCORE_INLIER_SCALE)), rounded to 0.1: monotonic in the inlier count. */
export function scoreFromInliers(inliers: number): number {
  return round1(100 * (1 - Math.exp(-inliers / SCORE_INLIER_SCALE)));
}

/** Fills the area and rectangle fields of a match from its target→query homography. */
export function matchMetrics(query: Features, target: Features, transform: Homography, inliers: number, flipped: boolean): MatchResult {
  const targetInQuery = imageCorners(target.width, target.height).map(([x, y]) => applyHomography(transform, x, y));
  const backward = invert(transform);
  const queryInTarget = imageCorners(query.width, query.height).map(([x, y]) => applyHomography(backward, x, y));
  const queryOverlap = clipToRect(targetInQuery, query.width, query.height);
  const targetOverlap = clipToRect(queryInTarget, target.width, target.height);
  let covered = 0;
  for (let i = 0; i < query.count; i++) if (insideConvex(targetInQuery, query.xy[2 * i], query.xy[2 * i + 1])) covered++;
  return {
    score: scoreFromInliers(inliers),
    // Without points (a whole-image match of a plain query), the share of the query the match covers.
    match_percent: query.count === 0 ? areaPercent(queryOverlap, query.width, query.height) : round1((100 * covered) / query.count),
    query_overlap_percent: areaPercent(queryOverlap, query.width, query.height),
    target_overlap_percent: areaPercent(targetOverlap, target.width, target.height),
    query_match_rect: boundingRect(queryOverlap, query.width, query.height),
    target_match_rect: boundingRect(targetOverlap, target.width, target.height),
    flipped,
    inliers,
    transform,
  };
}

function areaPercent(poly: Point[], width: number, height: number): number {
  if (poly.length < 3) return 0;
  return round1(Math.min(100, (100 * Math.abs(signedArea(poly))) / (width * height)));
}

/** Bounding box of a polygon in percent of the image; all zero for an empty polygon. */
function boundingRect(poly: Point[], width: number, height: number): Rect {
  if (poly.length === 0) return { left: 0, right: 0, top: 0, bottom: 0 };
  const xs = poly.map((p) => p[0]);
  const ys = poly.map((p) => p[1]);
  return {
    left: round1((100 * Math.min(...xs)) / width),
    right: round1((100 * Math.max(...xs)) / width),
    top: round1((100 * Math.min(...ys)) / height),
    bottom: round1((100 * Math.max(...ys)) / height),
  };
}

function round1(v: number): number {
  return Math.round(v * 10) / 10;
}
