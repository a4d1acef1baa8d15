/** 8-bit single-channel pixels, row-major, no padding. */
export interface GrayImage {
  data: Uint8Array;
  width: number;
  height: number;
}

/** Packed 8-bit RGB pixels (3 bytes per pixel), row-major, no padding. */
export interface RgbImage {
  data: Uint8Array;
  width: number;
  height: number;
}

/** ORB keypoints of one image, in that image's pixel coordinates. */
export interface Features {
  width: number;
  height: number;
  count: number;
  /** x, y per keypoint. */
  xy: Float32Array;
  /** size, angle (degrees), response, octave per keypoint. */
  meta: Float32Array;
  /** 32 bytes (256-bit ORB descriptor) per keypoint. */
  descriptors: Uint8Array;
  /**
   * Features of the horizontally mirrored image (in the mirrored image's coordinates), present when
   * extracted with `includeMirror`. ORB descriptors are not mirror invariant, so flip checks need them.
   */
  mirrored?: Features;
}

/** Box in PERCENT of the image width (left/right) and height (top/bottom). */
export interface Rect {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

export interface MatchResult {
  /** 0-100: saturating function of the RANSAC inlier count, see `scoreFromInliers`. */
  score: number;
  /** % of the query's keypoints that fall inside the projected target image (the matched part of the query fingerprint). */
  match_percent: number;
  /** % of the query image area covered by the projected target image. */
  query_overlap_percent: number;
  /** % of the target image area covered by the projected query image. */
  target_overlap_percent: number;
  /** Bounding box of the overlap polygon (projected target ∩ query), in the query. */
  query_match_rect: Rect;
  /** Bounding box of the overlap polygon (projected query ∩ target), in the target. */
  target_match_rect: Rect;
  /** True when the query is a horizontal mirror of the target (the transform includes the mirror). */
  flipped: boolean;
  inliers: number;
  /** 3x3 homography mapping target pixels to query pixels, row-major. */
  transform: number[];
  /**
   * Set when the inliers cover under `CONCENTRATED_SPREAD` of the overlap (`inlierSpread`): a detail two different
   * images share (a mark and a tagline set in one font) makes such fits, so this one is a match only once the collection
   * image's pixels agree over the whole overlap too (`confirmSharedDetail`).
   */
  concentrated?: boolean;
  /**
   * Weak fits only (`VerifyOptions.weakFit`): other alignments the matched keypoints support, best first, for the dense
   * check to try when this one's pixels disagree (a repeated pattern's lattice shifts and symmetric turns).
   */
  alternatives?: MatchResult[];
}

export interface VerifyOptions {
  /** Also try the mirrored query features (needs `query.mirrored`). Default false. */
  checkHorizontalFlip?: boolean;
  /** Fewest RANSAC inliers accepted as a match. Default `DEFAULT_MIN_INLIERS`. */
  minInliers?: number;
  /**
   * Return the best plausible fit even when too few of the pairs agree with it or its inliers cover too little of the
   * overlap: a candidate alignment for a dense check (`confirmDense`), never a match by itself. Default false.
   */
  weakFit?: boolean;
}
