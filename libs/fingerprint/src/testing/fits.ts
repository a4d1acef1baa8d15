import type { MatchResult } from '../types';

/** A fit of the whole frames proposing `transform` (collection image → query), as verification hands it on. */
export function proposing(transform: number[]): MatchResult {
  return {
    transform,
    inliers: 20,
    score: 0,
    match_percent: 100,
    query_overlap_percent: 100,
    target_overlap_percent: 100,
    query_match_rect: { left: 0, top: 0, right: 1, bottom: 1 },
    target_match_rect: { left: 0, top: 0, right: 1, bottom: 1 },
    flipped: false,
  };
}
