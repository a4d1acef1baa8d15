import { colourLikeness } from './colour-likeness';
import { colourNotHeld, colourShares } from './colour-set';
import { finerThanCoarse, locateCrop, smallestPlacedArea, TEXTURE_SIDE_SCALE, type CropPlacement } from './crop-locator';
import { alignedByPixels, settledAlignment } from './enhanced-score';
import { applyHomography, invert, multiply, type Homography } from './geometry';
import { matchMetrics } from './match-metrics';
import { cropRgb, rgbToGray, type PixelBox } from './rgb';
import { ContentBoxOf, matchInRotatedFrame, uprightEvidence } from './rotation';
import type { Features, GrayImage, MatchResult, RgbImage, VerifyOptions } from './types';
import { AlignedDetail, confirmSharedDetail, huesDisagree } from './shared-detail';
import { DEFAULT_MIN_SCORE, verifyMatch } from './verify';

/**
 * Fewest RANSAC inliers of a weak fit worth a dense check: a homography needs 4, and with 6 the alignment of a smooth
 * image's few corners is usually right.
 */
export const WEAK_FIT_MIN_INLIERS = 6;
/**
 * Least gradient correlation (`enhancedScore`, 0-100) that confirms a weak fit. On the benchmark photos, weak fits
 * between unrelated images (92 of 1,044 random pairs) correlated at most 49, and one held-out galaxy cropped to 50 %
 * reached 52.5 against another galaxy (both a bright ellipse on black); copies of smooth or faint images that failed the
 * feature check correlated 45-98 (repetitive ribbons at JPEG q10-30, contrast changes, blur, borders). 60 keeps a margin
 * above the worst unrelated pair and still rescues the clearest (72-98).
 */
export const DENSE_CONFIRM_MIN = 60;

/**
 * Least share (%) of the query and of the collection image that a weak fit must overlap. The second chance is for
 * copies of whole smooth images (their weak fits overlap 90-100 %); the benchmark's one dense false positive mapped a
 * galaxy photo into 5.8 % of a rotated other galaxy, where a correlation over a small dark patch means nothing.
 */
export const DENSE_MIN_OVERLAP = 50;

export interface ImageEvidence {
  /** The image, at the size of its features or reduced (then `features.width` tells the scale). */
  rgb: RgbImage;
  features: Features;
}

/**
 * Second chance for a pair that failed feature verification because the images have too few stable corners or repeat
 * one motif: the best weak geometric fit (`weakFitOptions`), or one of its alternatives, is accepted when the collection
 * image warped by it correlates with the query pixel for pixel (`confirmWeakFit`). Null when there is no such fit.
 */
export async function confirmDense(query: ImageEvidence, target: ImageEvidence, opts: { checkHorizontalFlip?: boolean } = {}, check: DenseCheck = {}): Promise<MatchResult | null> {
  const fit = await verifyMatch(query.features, target.features, weakFitOptions(opts.checkHorizontalFlip));
  return fit && (await confirmWeakFit(query.rgb, target.rgb, fit, 1, check));
}

/**
 * Verification options of the weak fit a dense check starts from: at least WEAK_FIT_MIN_INLIERS inliers among nearest
 * neighbours without the ratio test, without the inlier-share and spread gates. It needs the features only, so weak
 * fits can run with the other verifications (a pool) and the collection image's pixels be read only for the few pairs
 * that have one.
 */
export function weakFitOptions(checkHorizontalFlip = false): VerifyOptions {
  return { minInliers: WEAK_FIT_MIN_INLIERS, weakFit: true, checkHorizontalFlip };
}

/**
 * A crop's weak fit: the query lies (almost) wholly inside the collection image and covers at least this share (%) of
 * it. Crops of repeated patterns and smooth artwork down to 25 % of the image (overlap 25 %) are copies as much as
 * whole images are; the benchmark's dense false positive covered 5.8 %.
 */
export const DENSE_CROP_QUERY_OVERLAP = 90;
export const DENSE_CROP_MIN_TARGET_OVERLAP = 20;

/**
 * Whether a weak fit is worth a dense check: it covers at least DENSE_MIN_OVERLAP % of both images (a whole copy), or
 * the query is a crop: wholly inside the collection image, covering at least DENSE_CROP_MIN_TARGET_OVERLAP % of it.
 */
export function overlapsForDense(fit: MatchResult): boolean {
  if (isWholeCopyFit(fit)) return true;
  return fit.query_overlap_percent >= DENSE_CROP_QUERY_OVERLAP && fit.target_overlap_percent >= DENSE_CROP_MIN_TARGET_OVERLAP;
}

/** Whether a weak fit or one of its alternatives is worth a dense check (`overlapsForDense`). */
export function worthDenseCheck(fit: MatchResult): boolean {
  return overlapsForDense(fit) || (fit.alternatives ?? []).some(overlapsForDense);
}

/**
 * The dense check (`confirmDenseFit`) of a weak fit, then of its alternatives (`MatchResult.alternatives`), the first
 * confirmed. An alternative is judged as a shared design too (`DenseCheck.sharedDesign`): it is another alignment to
 * accept, and in the pair probe one aligned a logo crop with another logo of its template well enough for the
 * gradients and chromaticities (correlation 62-64), which the shared-detail check refuses.
 */
export async function confirmWeakFit(query: RgbImage, target: RgbImage, fit: MatchResult, targetScale = 1, check: DenseCheck = {}): Promise<MatchResult | null> {
  const { alternatives = [], ...best } = fit;
  if (overlapsForDense(best)) {
    const confirmed = await confirmDenseFit(query, target, best, targetScale, check);
    if (confirmed) return confirmed;
  }
  for (const alternative of alternatives) {
    if (!overlapsForDense(alternative)) continue;
    const confirmed = await confirmDenseFit(query, target, alternative, targetScale, { ...check, sharedDesign: true });
    if (confirmed) return confirmed;
  }
  return null;
}

/** A weak fit of a whole copy: it covers at least DENSE_MIN_OVERLAP % of both images. */
function isWholeCopyFit(fit: MatchResult): boolean {
  return fit.query_overlap_percent >= DENSE_MIN_OVERLAP && fit.target_overlap_percent >= DENSE_MIN_OVERLAP;
}

/**
 * Largest mean chromaticity difference (|Δr| + |Δg| of r/(r+g+b), g/(r+g+b)) between a query and the collection image
 * its dense check aligns. Copies of the benchmark's patterns, smooth images and logos (crops, rotations, JPEG q30)
 * measured 0.001-0.08 (0.05-0.08: tiles of random glazes aligned one tile off), while crops of other tile walls and
 * weaves that correlated at 53-83 (their grids align) differed by 0.24-0.47.
 */
export const DENSE_MAX_CHROMA_DIFFERENCE = 0.15;
/**
 * Largest mean hue difference (degrees) of a dense or whole-image confirmation (`huesDisagree`), looser than a feature
 * fit's: a fine weave at half size and JPEG q30 keeps its threads' colours only roughly. In a pair probe of the
 * benchmark families (18 images per family and split, every edit, each edited image against every image of its family),
 * the 455 weak fits of copies that the gradients and chromaticity confirm differed by at most 19.7° (weaves at half size
 * and JPEG q30, a tile wall's crop), while tile walls of one grid in glazes 30-45° apart pass both (a lattice's crop
 * confirmed in another lattice at 41°, a false positive of the matching benchmark), as do badges of one design in other
 * colours (136°).
 */
export const DENSE_MAX_HUE = 30;
/** Samples per side of the query grid the chromaticity is compared on. */
const CHROMA_GRID = 32;
/** Pixels darker than this (r+g+b) have no reliable chromaticity and are skipped. */
const CHROMA_MIN_SUM = 60;

/**
 * Range of the gain (contrast) of the brightness change undone before chromaticities are compared: the edit suite's
 * contrast ±40 % is a gain of 0.6-1.4; a gain outside this range is not a contrast change.
 */
const CONTRAST_GAIN_RANGE: readonly [number, number] = [0.5, 2];

/**
 * Mean chromaticity difference between the query and the collection image aligned by the fit (target → query, the
 * target's pixels `targetScale` times the size the fit refers to), over a grid of query points that fall inside the
 * target; 1 when no sample counts.
 *
 * A contrast or brightness change of a copy (one gain and offset for all three channels) moves chromaticities too: a
 * saturated purple gradient at contrast +40 % differed by 0.25 from its original. Such a change is undone first (the
 * least-squares gain and offset from the collection image's channels to the query's) when its gain is a plausible
 * contrast. It cannot make other colours agree: a positive gain keeps the order of a pixel's channels, so a red tile
 * stays red and a blue one blue.
 */
export function chromaDifference(query: RgbImage, target: RgbImage, fit: MatchResult, targetScale = 1): number {
  const samples = alignedSamples(query, target, fit, targetScale);
  const raw = meanChromaDifference(samples, 1, 0);
  const { gain, offset } = commonGainAndOffset(samples);
  if (gain < CONTRAST_GAIN_RANGE[0] || gain > CONTRAST_GAIN_RANGE[1]) return raw;
  return Math.min(raw, meanChromaDifference(samples, gain, offset));
}

/** RGB of the query and of the target at the same point, three channels each, for the grid points inside the target. */
function alignedSamples(query: RgbImage, target: RgbImage, fit: MatchResult, targetScale: number): { query: number[]; target: number[] } {
  const back = invert(fit.transform);
  const samples = { query: [] as number[], target: [] as number[] };
  for (let j = 0; j < CHROMA_GRID; j++) {
    for (let i = 0; i < CHROMA_GRID; i++) {
      const x = Math.floor(((i + 0.5) * query.width) / CHROMA_GRID);
      const y = Math.floor(((j + 0.5) * query.height) / CHROMA_GRID);
      const [tx, ty] = applyHomography(back, x, y);
      const u = Math.round(tx * targetScale);
      const v = Math.round(ty * targetScale);
      if (u < 0 || v < 0 || u >= target.width || v >= target.height) continue;
      const q = 3 * (y * query.width + x);
      const t = 3 * (v * target.width + u);
      for (let c = 0; c < 3; c++) {
        samples.query.push(query.data[q + c]);
        samples.target.push(target.data[t + c]);
      }
    }
  }
  return samples;
}

/** Least-squares `gain` and `offset` of query ≈ gain · target + offset over every channel of every sample. */
function commonGainAndOffset(samples: { query: number[]; target: number[] }): { gain: number; offset: number } {
  const n = samples.query.length;
  if (n === 0) return { gain: 1, offset: 0 };
  let meanQ = 0;
  let meanT = 0;
  for (let k = 0; k < n; k++) {
    meanQ += samples.query[k];
    meanT += samples.target[k];
  }
  meanQ /= n;
  meanT /= n;
  let covariance = 0;
  let variance = 0;
  for (let k = 0; k < n; k++) {
    covariance += (samples.query[k] - meanQ) * (samples.target[k] - meanT);
    variance += (samples.target[k] - meanT) ** 2;
  }
  const gain = variance > 0 ? covariance / variance : 1;
  return { gain, offset: meanQ - gain * meanT };
}

/** Mean |Δr| + |Δg| of the chromaticities, the target's channels mapped by gain · value + offset (clamped to 0-255). */
function meanChromaDifference(samples: { query: number[]; target: number[] }, gain: number, offset: number): number {
  const mapped = (value: number) => Math.min(255, Math.max(0, gain * value + offset));
  let sum = 0;
  let n = 0;
  for (let k = 0; k < samples.query.length; k += 3) {
    const [qr, qg, qb] = [samples.query[k], samples.query[k + 1], samples.query[k + 2]];
    const [tr, tg, tb] = [mapped(samples.target[k]), mapped(samples.target[k + 1]), mapped(samples.target[k + 2])];
    const qs = qr + qg + qb;
    const ts = tr + tg + tb;
    if (qs < CHROMA_MIN_SUM || ts < CHROMA_MIN_SUM) continue;
    sum += Math.abs(qr / qs - tr / ts) + Math.abs(qg / qs - tg / ts);
    n++;
  }
  return n === 0 ? 1 : sum / n;
}

/**
 * How strictly a dense or whole-image confirmation judges the aligned pixels. `sharedDesign`: also refuse what a
 * concentrated feature fit is refused for (`confirmSharedDetail`: hues over 14° apart, or the collection image's own
 * edges missing from the query). Copies turned back upright (`confirmUpright`) are judged so: a rotated logo or
 * herringbone turned upright aligns with other images of its design (another name, other colours) well enough for the
 * gradients and chromaticities alone (correlations 65-78, hues 15-24° apart), while its own upright copies measured
 * hues within 12.6° in the benchmark families.
 */
export interface DenseCheck {
  sharedDesign?: boolean;
}

/**
 * A weak fit confirmed by gradient correlation (`enhancedScore`) of at least DENSE_CONFIRM_MIN, at its own alignment
 * or at the scale its pixels settle it to (`alignedByPixels`: a weak fit of a fine lattice comes out a few percent off).
 * Its score is the feature score floor scaled by that correlation, DEFAULT_MIN_SCORE · correlation / 100, so a match
 * found this way always ranks below every feature-verified one. `targetScale`: the target's pixels relative to the size
 * the fit refers to.
 */
export async function confirmDenseFit(query: RgbImage, target: RgbImage, proposed: MatchResult, targetScale = 1, check: DenseCheck = {}): Promise<MatchResult | null> {
  // A pattern shares its grid with every pattern of that grid (tiles, weaves), whose gradients then correlate: the
  // colors must agree too, at the proposed alignment before its pixels are compared, and at the one they settle on.
  if (chromaDifference(query, target, proposed, targetScale) > DENSE_MAX_CHROMA_DIFFERENCE) return null;
  const aligned = await alignedByPixels(query, target, proposed, targetScale, DENSE_CONFIRM_MIN);
  const correlation = aligned.score;
  if (correlation < DENSE_CONFIRM_MIN) return null;
  const settled = aligned.transform !== proposed.transform;
  const fit = settled ? { ...proposed, transform: aligned.transform } : proposed;
  if (settled && chromaDifference(query, target, fit, targetScale) > DENSE_MAX_CHROMA_DIFFERENCE) return null;
  // The chromaticity is dominated by a light, unsaturated ground: badges of one design in other colours pass it, and a
  // shared design that feature verification refused (`confirmSharedDetail`) would come back here. Their hues differ.
  // Judged as a shared design, the shared-detail check's own hue bound (14°) refuses every pair this one would. A
  // settled alignment is the best of several scales and is judged so too: at one of them a crop of a twill correlated
  // with another twill of its structure and palette (docs/benchmarks.md, session 41).
  if (check.sharedDesign || settled) {
    if (!(await confirmSharedDetail(query, target, { ...fit, concentrated: true }, targetScale))) return null;
  } else if (huesDisagree(query, target, fit, targetScale, DENSE_MAX_HUE)) return null;
  return { ...fit, score: Math.round(DEFAULT_MIN_SCORE * correlation) / 100 };
}

/**
 * Largest relative difference of aspect ratio for the whole-image check: a copy that keeps the whole frame keeps its
 * shape (up to rounding and border cropping), a crop does not.
 */
const WHOLE_IMAGE_ASPECT_TOLERANCE = 0.05;

/** Whether two frames have one shape (WHOLE_IMAGE_ASPECT_TOLERANCE): what a copy of the whole image keeps. */
export function sameFrameShape(a: { width: number; height: number }, b: { width: number; height: number }): boolean {
  return Math.abs(a.width / a.height / (b.width / b.height) - 1) <= WHOLE_IMAGE_ASPECT_TOLERANCE;
}
/**
 * Colour likeness (`colourLikeness`) that confirms a whole-image copy the gradients could not. Over the benchmark
 * families' images at half size and JPEG q30 against their originals (48 pairs), copies correlated at 0.998 or more
 * when smooth (0-0.998 for patterns, whose gradients confirm them instead), differing by 0.5-2.5 levels on average;
 * the 336 pairs of different images of a family correlated at most 0.92 (flat landscapes, 27 levels apart), and those
 * whose hashes were within 10 bits at most 0.67. Copies rotated ±20° and turned upright (108 pairs) differed by at most
 * 1.9 levels, while an upright badge against another badge of its template and colours, which differs by its name
 * only, correlated at 0.994 and differed by 5.5: the difference bound sits between.
 */
const WHOLE_LIKENESS_MIN_CORRELATION = 0.99;
const WHOLE_LIKENESS_MAX_DIFFERENCE = 4;

/**
 * Second chance for a copy of the whole image (found by its difference hash) that local features could not verify:
 * the collection image scaled onto the query frame (mirrored when `flipped`) must correlate like a dense check
 * (`confirmDenseFit`), or agree in colour pixel for pixel (WHOLE_LIKENESS_*), an upright copy too: the gradients of a
 * gradient turned upright are resampling noise, and its colours tell it as they tell a recompressed copy. On the
 * benchmark photos, copies of smooth wallpapers (JPEG q10-30, blur) correlated 80-98 under this alignment, while 61
 * pairs of different photos with hashes within 10 bits reached at most 40.
 */
export async function confirmWholeImage(query: ImageEvidence, target: ImageEvidence, flipped: boolean, check: DenseCheck = {}): Promise<MatchResult | null> {
  const { rgb: q } = query;
  const t = target.features;
  if (!sameFrameShape(q, t)) return null;
  const scale = [q.width / t.width, 0, 0, 0, q.height / t.height, 0, 0, 0, 1];
  const transform = flipped ? multiply([-1, 0, q.width - 1, 0, 1, 0, 0, 0, 1], scale) : scale;
  const fit = matchMetrics(query.features, t, transform, 0, flipped);
  const targetScale = target.rgb.width / t.width;
  const confirmed = await confirmDenseFit(q, target.rgb, fit, targetScale, check);
  if (confirmed) return confirmed;
  const { correlation, meanDifference } = await colourLikeness(q, target.rgb, flipped);
  if (meanDifference > WHOLE_LIKENESS_MAX_DIFFERENCE) return null;
  // A smooth gradient's gradients are the same everywhere and JPEG noise decides their correlation: its colours, pixel
  // for pixel at a small size, still tell a copy. Checked before the settle, which costs a few alignments.
  if (correlation >= WHOLE_LIKENESS_MIN_CORRELATION) return { ...fit, score: Math.round(DEFAULT_MIN_SCORE * correlation * 100) / 100 };
  return confirmSettledFrame(q, target.rgb, fit, targetScale, check);
}

/**
 * The whole-image fit at the alignment its pixels settle to (`settledAlignment`). A copy's frame is cut a pixel or two
 * off the collection image's: each border cut (`findContentBox`) rounds to whole pixels at its image's own size, and an
 * upright copy's frame is cut from the rotated one (`derotate`), which fine lattices, stripes and rows of digits do not
 * forgive. A tile lattice turned +20° and back correlated 54 as cut (a tile is 10 px, its joints 1 px) and 75 settled
 * 1.5 px over; half-size JPEG q30 copies of stripes, their frames cut 2 px apart, 58 and 98. Only for a frame whose
 * colours agree pixel for pixel (WHOLE_LIKENESS_MAX_DIFFERENCE, checked by the caller): a lattice of the same tiles in
 * another glaze settles onto the query as well (86), and at a quarter size its thin joints and glaze blend into colours
 * too grey for a hue check; its colours were 9.5 levels off (the copy's 0.7). In a pair probe of the benchmark families'
 * images (rotated ±20° and turned upright, or halved and re-encoded at JPEG q30, against their own image and the others
 * of their family and shape), settling confirmed 26 more of 265 copies (19 of 163 upright, 7 of 102 halved) and none
 * of 2,882 other pairs. Judged as the alignment as cut is (`check`): the colours agreeing pixel for pixel over the whole
 * frame are what a crop's settled alignment lacks, and why that one is judged as a shared design.
 */
async function confirmSettledFrame(query: RgbImage, target: RgbImage, fit: MatchResult, targetScale: number, check: DenseCheck): Promise<MatchResult | null> {
  return judgedOnceSettled(query, target, fit, targetScale, (settled) => confirmDenseFit(query, target, settled, targetScale, check));
}

/** `judge` of `fit` moved to the alignment its pixels settle to (`settledAlignment`); null where they settle nowhere. */
async function judgedOnceSettled(query: RgbImage, target: RgbImage, fit: MatchResult, targetScale: number, judge: (settled: MatchResult) => Promise<MatchResult | null>): Promise<MatchResult | null> {
  const settled = await settledAlignment(query, target, fit.transform, targetScale);
  return settled && judge({ ...fit, transform: settled });
}

/**
 * Colour likeness (`colourLikeness`) of a placed crop (`confirmPlacedCrop`) and the part of the collection image it
 * covers. Over the benchmark families' 25 % and 50 % crops placed in their own images (144) and in the 23 other images
 * of their family (3,312), the placed copies correlated at 0.8 or more and differed by at most 4 levels in 136 (the rest
 * were misplaced, or textures that a 48 px likeness blurs away), while no other image did both: the nearest differed by
 * 6.5 levels at a correlation of 0.78, and a logo of the same template in other colours by 7.5 at 0.96.
 */
const PLACED_LIKENESS_MIN_CORRELATION = 0.8;
const PLACED_LIKENESS_MAX_DIFFERENCE = 4;

/**
 * Second chance for an upright crop whose corners are too few or too alike for a feature fit (a smooth wallpaper, a
 * quarter of a tile wall): the query placed in the collection image by its pixels (`locateCrop`), and confirmed when it
 * and the part of the collection image it covers agree in colour pixel for pixel (PLACED_LIKENESS_*), and, judged as
 * a shared design, pass the shared-detail check. A placement is searched, so the best of many, and a gradient
 * correlation that confirms a weak fit would confirm a placement of another image of the family (aurora bands at
 * 61-73): colours decide, unless the two are point fields whose points differ (`AlignedDetail.pointFieldsDiffer`).
 * Scored as a whole-image copy, below every feature match. With `insideFlatBands` (the imaging library's
 * `findContentInsideFlatBands`), a query that is not placed as it is, is placed again without its flat bands.
 */
export async function confirmPlacedCrop(query: ImageEvidence & { gray?: GrayImage }, target: ImageEvidence, check: DenseCheck = {}, insideFlatBands?: ContentBoxOf): Promise<MatchResult | null> {
  const targetGray = rgbToGray(target.rgb);
  let placed = await placeByPixels(query.rgb, query.gray ?? rgbToGray(query.rgb), target.rgb, targetGray);
  // The collection image's border cut may have taken off a flat band (a sky of a fifth of the image) that the crop,
  // where it fills more than the cut allows, kept: the crop is then no crop of the stored image, but its content is.
  const boxes = !placed && insideFlatBands ? flatBandCuts(query.rgb, insideFlatBands(query.rgb)) : [];
  for (const box of boxes) {
    const inside = cropRgb(query.rgb, box);
    const shifted = await placeByPixels(inside, rgbToGray(inside), target.rgb, targetGray);
    placed = shifted && { ...shifted, transform: multiply([1, 0, box.left, 0, 1, box.top, 0, 0, 1], shifted.transform) };
    if (placed) break;
  }
  if (!placed) return null;
  const targetScale = target.rgb.width / target.features.width;
  const fit = matchMetrics(query.features, target.features, multiply(placed.transform, [targetScale, 0, 0, 0, targetScale, 0, 0, 0, 1]), 0, false);
  // Two night skies agree in colour wherever a bright galaxy lies on black; their stars tell them apart.
  const aligned = await AlignedDetail.of(query.rgb, target.rgb, fit, targetScale);
  if (aligned.pointFieldsDiffer()) return null;
  const confirmed = check.sharedDesign ? await placementSharesDetail(query.rgb, target.rgb, fit, targetScale, aligned) : fit;
  return confirmed && { ...confirmed, score: Math.round(DEFAULT_MIN_SCORE * placed.correlation * 100) / 100 };
}

/**
 * The boxes of `query` to place once it is not placed as it is, when `inside` (its content inside its flat bands) took
 * bands off its sides: `inside` first, then, when that left less than ONE_SIDE_CUTS_MAX_INSIDE_SHARE of the query and
 * the bands are on two or three sides, the query with its bands taken off one side at a time. The collection image's
 * border cut takes a band off a side only where it is at most MAX_BORDER_SHARE of that side: a quarter of a logo on a
 * plain ground kept the ground above the badge that its image kept (44 % of its height) and the ground left of the badge
 * that its image lost; with both taken off, what was left was a strip of the badge (19 % of the quarter) too plain to
 * place. Empty when there is no band to take off.
 */
function flatBandCuts(query: RgbImage, inside: PixelBox): PixelBox[] {
  const whole = { left: 0, top: 0, right: query.width, bottom: query.height };
  const cutSides = (['left', 'top', 'right', 'bottom'] as const).filter((side) => inside[side] !== whole[side]);
  if (cutSides.length === 0) return [];
  const insideShare = ((inside.right - inside.left) * (inside.bottom - inside.top)) / (query.width * query.height);
  const oneSideAtATime = insideShare < ONE_SIDE_CUTS_MAX_INSIDE_SHARE && cutSides.length > 1 && cutSides.length < 4;
  return [inside, ...(oneSideAtATime ? cutSides.map((side) => ({ ...whole, [side]: inside[side] })) : [])];
}

/**
 * Most of a query its content inside its flat bands may keep for `flatBandCuts` to also try its bands taken off one side
 * at a time. Where the bands are thin, what is left is placed as well as the query less one of them, and each try is a
 * template search in every image the query is placed in.
 */
const ONE_SIDE_CUTS_MAX_INSIDE_SHARE = 0.5;

/**
 * The shared-detail check (`confirmSharedDetail`) of a placement judged as a shared design, at the placement and, when
 * refused there, once more at the alignment its pixels settle to (`settledAlignment`). A placement is searched at 192 px
 * and can land a couple of comparison pixels off: there an upright copy of wood grain or stripes reproduced 1-54 % of
 * its image's edges with hues 1-25° apart, and 100 % with hues under 8° once settled (docs/benchmarks.md, session 44).
 * The fit confirmed, at the alignment that passed, or null.
 */
async function placementSharesDetail(query: RgbImage, target: RgbImage, fit: MatchResult, targetScale: number, aligned: AlignedDetail): Promise<MatchResult | null> {
  const asShared = { ...fit, concentrated: true };
  return (
    (await confirmSharedDetail(query, target, asShared, targetScale, aligned)) ??
    judgedOnceSettled(query, target, asShared, targetScale, (settled) => confirmSharedDetail(query, target, settled, targetScale))
  );
}

/**
 * Most of a query's colour that a collection image may fail to hold (`colourNotHeld`) and still be worth placing the
 * query in (`mayHoldPlacement`). A placement is confirmed only where its colours agree within a few levels pixel for
 * pixel (PLACED_LIKENESS_*), so the image must hold nearly all of them. In the matching benchmark's large sample (3,977
 * placements, 416 confirmed), no confirmed placement left more than 0.009 of its query's colour not held, and 1,130 of
 * the others left more than 0.1: 31 % of the placements' time, spent before on reading, decoding and searching
 * images of other colours (docs/benchmarks.md, session 57).
 */
export const PLACED_MAX_COLOUR_NOT_HELD = 0.1;

/**
 * The colours a placement of a query compares (`colourShares`), with their frames' shapes: the query's, and those of its
 * content inside its flat bands when it has them, which `confirmPlacedCrop` places when the query is not placed.
 */
export interface PlacedColours {
  shares: Float64Array;
  width: number;
  height: number;
}

export function placedColours(query: RgbImage, insideFlatBands?: ContentBoxOf): PlacedColours[] {
  const inside = insideFlatBands && cropRgb(query, insideFlatBands(query));
  const parts = inside && inside !== query ? [query, inside] : [query];
  return parts.map((rgb) => ({ shares: colourShares(rgb), width: rgb.width, height: rgb.height }));
}

/**
 * Whether a collection image whose colour shares are `shares` (`colourShares`, as stored) and whose frame is `frame` can
 * hold the colours of a query placed in it (`placedColours`): they leave at most PLACED_MAX_COLOUR_NOT_HELD of the
 * query's colour not held, the placement covering as little of the image as `locateCrop` searches. When it cannot,
 * `confirmPlacedCrop` would find no placement whose colours agree.
 */
export function mayHoldPlacement(colours: readonly PlacedColours[], shares: Float64Array, frame: { width: number; height: number }): boolean {
  return colours.some((part) => colourNotHeld(part.shares, shares, smallestPlacedArea(part, frame)) <= PLACED_MAX_COLOUR_NOT_HELD);
}

/** A placed crop whose colours agree: the map of target pixels to query pixels, and their colour correlation. */
interface ColourPlacement {
  transform: Homography;
  correlation: number;
}

/**
 * `query` placed in `target` by its pixels (`locateCrop`): the map of target pixels to query pixels, and the colour
 * correlation of the query with the part of the target it covers; null when it is not placed or its colours disagree
 * (PLACED_LIKENESS_*). Placed by correlation first; when the colours there vary as the query's do but at other levels,
 * placed again by its levels: correlation ignores a template's mean and contrast, so a crop of a smooth gradient
 * correlates as well wherever the gradient runs its way, at any size, and the best of those is seldom its own place.
 * In a probe on the matching benchmark's family images, every crop so placed had colours correlating at 0.999 or more
 * in the correlation's place, while the placements in other images correlated at most 0.81 (most under 0.7). A query
 * whose pattern is finer than the coarse search shows (`finerThanCoarse`) and is not placed is placed again at twice the
 * search's sides (TEXTURE_SIDE_SCALE).
 */
async function placeByPixels(query: RgbImage, queryGray: GrayImage, target: RgbImage, targetGray: GrayImage): Promise<ColourPlacement | null> {
  const placed = await placeAtSides(query, queryGray, target, targetGray, 1);
  if (placed || !(await finerThanCoarse(queryGray))) return placed;
  return placeAtSides(query, queryGray, target, targetGray, TEXTURE_SIDE_SCALE);
}

/** `placeByPixels` at `sideScale` times the template search's sides. */
async function placeAtSides(query: RgbImage, queryGray: GrayImage, target: RgbImage, targetGray: GrayImage, sideScale: number): Promise<ColourPlacement | null> {
  const byCorrelation = await locateCrop(queryGray, targetGray, 'correlation', sideScale);
  if (!byCorrelation) return null;
  const likeness = await placedLikeness(query, target, byCorrelation);
  const placed = agreeing(byCorrelation, likeness) ?? (nearlyAgreeing(likeness) ? await agreeingOnceSettled(query, target, byCorrelation) : null);
  // Refused although its colours correlate: they vary as the query's do, at other levels.
  if (placed || likeness.correlation < PLACED_LIKENESS_MIN_CORRELATION) return placed;
  const byLevels = await locateCrop(queryGray, targetGray, 'levels', sideScale);
  return byLevels && agreeing(byLevels, await placedLikeness(query, target, byLevels));
}

/** The colour likeness (`colourLikeness`) of the query and the part of `target` a placement covers. */
function placedLikeness(query: RgbImage, target: RgbImage, placement: CropPlacement) {
  const [a, , b, , c, d] = placement.transform;
  const covered = cropRgb(target, {
    left: Math.max(0, Math.round(-b / a)),
    top: Math.max(0, Math.round(-d / c)),
    right: Math.min(target.width, Math.round((query.width - b) / a)),
    bottom: Math.min(target.height, Math.round((query.height - d) / c)),
  });
  return colourLikeness(query, covered);
}

/**
 * Whether a placement's colours are near enough to be worth settling (`agreeingOnceSettled`): they correlate
 * (PLACED_LIKENESS_MIN_CORRELATION) and differ by at most PLACED_NEAR_DIFFERENCE, or they agree on average
 * (PLACED_LIKENESS_MAX_DIFFERENCE) and correlate at least PLACED_NEAR_CORRELATION. In the matching benchmark's large
 * sample, a quarter of a tile wall of many glazes placed in its own image two pixels off differed by 4.6 levels, and by
 * 1.0 once settled; an upright crop of a fine lattice, whose colours at the comparison's size are its joints, correlated
 * at 0.71 a pixel off (1.0 level apart), and at 0.88 once settled. Other images' placements differed by 6.5 levels and
 * more in the probe behind PLACED_LIKENESS_*; settling moves a placement by a few pixels, which does not make another
 * image's colours agree: in a pair probe of the families' quarter crops and upright rotated half crops (216 copies,
 * 7,560 other pairs) the lower correlation settled 1 more copy (stripes) and no other pair.
 */
const PLACED_NEAR_DIFFERENCE = 2 * PLACED_LIKENESS_MAX_DIFFERENCE;
const PLACED_NEAR_CORRELATION = 0.6;
function nearlyAgreeing({ correlation, meanDifference }: { correlation: number; meanDifference: number }): boolean {
  if (meanDifference <= PLACED_LIKENESS_MAX_DIFFERENCE) return correlation >= PLACED_NEAR_CORRELATION;
  return correlation >= PLACED_LIKENESS_MIN_CORRELATION && meanDifference <= PLACED_NEAR_DIFFERENCE;
}

/**
 * A placement settled by its pixels (`settledAlignment`, its scale and shift kept: a placement is an upright crop), with
 * its colour correlation when its colours then agree, else null.
 */
async function agreeingOnceSettled(query: RgbImage, target: RgbImage, placement: CropPlacement): Promise<ColourPlacement | null> {
  const settled = await settledAlignment(query, target, placement.transform, 1);
  if (!settled) return null;
  const upright = { ...placement, transform: [settled[0], 0, settled[2], 0, settled[4], settled[5], 0, 0, 1] };
  return agreeing(upright, await placedLikeness(query, target, upright));
}

/** A placement with its colour correlation when its colours agree (PLACED_LIKENESS_*), else null. */
function agreeing(placement: CropPlacement, { correlation, meanDifference }: { correlation: number; meanDifference: number }): ColourPlacement | null {
  if (correlation < PLACED_LIKENESS_MIN_CORRELATION || meanDifference > PLACED_LIKENESS_MAX_DIFFERENCE) return null;
  return { transform: placement.transform, correlation };
}

/** How the second chances judge a query turned upright (see `DenseCheck`). */
export const UPRIGHT_CHECK: DenseCheck = { sharedDesign: true };

/**
 * The second chances of a pair (`confirmDense`, `confirmWholeImage`, then `confirmPlacedCrop`) for a query whose edges
 * show a rotation off the axes, tried on the query turned back upright (`uprightCopy`) and judged as UPRIGHT_CHECK, and
 * told in the query's own frame. Null when the query shows no rotation or no chance confirms the upright copy.
 */
export async function confirmUpright(query: ImageEvidence & { gray?: GrayImage }, target: ImageEvidence, opts: { checkHorizontalFlip?: boolean; contentBox?: ContentBoxOf; insideFlatBands?: ContentBoxOf } = {}): Promise<MatchResult | null> {
  const upright = await uprightEvidence(query.rgb, query.gray ?? rgbToGray(query.rgb), opts.checkHorizontalFlip, opts.contentBox);
  if (!upright) return null;
  const match =
    (await confirmDense(upright, target, opts, UPRIGHT_CHECK)) ??
    (await confirmWholeImage(upright, target, false, UPRIGHT_CHECK)) ??
    (await confirmPlacedCrop(upright, target, UPRIGHT_CHECK, opts.insideFlatBands));
  return match && matchInRotatedFrame(match, upright.toRotated, query.features, target.features);
}
