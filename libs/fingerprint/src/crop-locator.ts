import type { Homography } from './geometry';
import { loadOpenCv, withMats, type Cv } from './opencv';
import type { GrayImage } from './types';

/**
 * Longer side (px) of the collection image in the coarse search: a smooth image's layout is all there. Of the benchmark
 * families' 144 crops, 136 were placed and confirmed; at 80 px in steps of 10 %, 133 in about two thirds of the time,
 * and two rotated tile walls turned upright were lost in the benchmark.
 */
const COARSE_SIDE = 96;
/** Longer side (px) of the refinement: one coarse pixel is about 6 px of a 600 px image, too coarse for a pixel check. */
const FINE_SIDE = 192;
/**
 * A query whose pattern is finer than the coarse search shows (`finerThanCoarse`) is placed again at TEXTURE_SIDE_SCALE
 * times both sides (no larger than the collection image) when it is not placed at them: its grey levels nearly flat
 * (under TEXTURE_FLAT_VARIANCE level²) at TEXTURE_PROBE_WIDTH, a quarter crop's template width at COARSE_SIDE, and
 * varying at TEXTURE_SIDE_SCALE² times that width (at least TEXTURE_FLAT_VARIANCE, and TEXTURE_GAIN times as much). In
 * the matching benchmark, quarters of a twill and of a fine lattice turned 20° and back varied by 0-8 level² at 48 px
 * and 44-551 at 192 px, and the coarse search placed them nowhere, or anywhere; at twice the sides the twill's and one
 * of the lattice's were placed and confirmed. Of the benchmark's images, 26 of the 36 patterns pass the test, 5 of 368
 * photos (starfields), no smooth image and no logo.
 */
export const TEXTURE_SIDE_SCALE = 2;
const TEXTURE_PROBE_WIDTH = COARSE_SIDE / 2;
const TEXTURE_FLAT_VARIANCE = 25;
const TEXTURE_GAIN = 4;
/** Blur (px at the search size) of both images before correlating: JPEG blocks and dithering are not the picture. */
const BLUR_SIGMA = 1;
/**
 * Widths of the query in the collection image searched, as a share of the collection image's width: from a crop of a
 * sixth of the image's area (0.4 of its side) to the whole image, in steps of 7 % (the refinement's scales, ±5 % in
 * steps of 2.5 %, narrow the step down).
 */
const SMALLEST_SHARE = 0.4;
const SHARE_STEP = 1.07;
/**
 * The step of those widths at TEXTURE_SIDE_SCALE. A pattern of many periods decorrelates across the template when its
 * size is a few percent off, half a period at each end: the coarse search then passes a fine lattice's quarter by
 * chance or not at all. Upright copies of the matching benchmark's families' crops, rotated and re-encoded (216), placed
 * in their own images and in 5 other images of their family each: 1.07 placed 211 own (a tile wall's quarter at a
 * coarse correlation of 0.55 or 0.64 as its frame was cut a row apart; stripes at 0.23), 1.03 placed 214 (0.86 and 0.89),
 * and the same 2 in other images (an emblem of the same template); the placements took 8 % longer.
 */
const TEXTURE_SHARE_STEP = 1.03;
/** Smallest template side (px) at the coarse size: smaller ones correlate with anything. */
const MIN_TEMPLATE_SIDE = 20;
/**
 * Least coarse correlation of a placement worth refining: the benchmark families' crops placed in their own images
 * correlated at 0.6 or more (0.6 itself a misplaced badge), while two thirds of the placements in the other images of
 * their family correlated less.
 */
const MIN_COARSE_CORRELATION = 0.6;
/**
 * What a placement is judged by. `correlation` (normalised cross-correlation) ignores the template's mean and contrast,
 * so JPEG and tone shifts do not move it; but a crop of a smooth gradient then correlates as well wherever the gradient
 * runs the same way, at any size. `levels` (the squared grey difference) also asks the levels to agree, which in a
 * gradient only the crop's own place and size do; the colour check that follows asks that of a placement anyway.
 */
export type PlacedBy = 'correlation' | 'levels';
/** Grey levels (root mean square difference) at which a placement by levels agrees 0. */
const LEVEL_SCALE = 32;
/** Least coarse agreement by levels worth refining: within about 10 levels (root mean square) at the coarse size. */
const MIN_COARSE_LEVEL_AGREEMENT = 0.7;
/** Scales (relative) and shifts (px at FINE_SIDE) tried around the coarse placement. */
const REFINE_SCALES = [0.95, 0.975, 1, 1.025, 1.05];
const REFINE_MARGIN = 6;

/**
 * The least share (0-1) of a collection image's area that a placement of a query (`locateCrop`) covers, by the two
 * frames' shapes: SMALLEST_SHARE of the image's width for a query of its shape or wider, of its height for a taller one,
 * so SMALLEST_SHARE² for a query of the image's shape and less for one of another.
 */
export function smallestPlacedArea(query: { width: number; height: number }, target: { width: number; height: number }): number {
  const shapes = query.height / query.width / (target.height / target.width);
  return SMALLEST_SHARE ** 2 * Math.min(shapes, 1 / shapes);
}

/** Where a query sits in a collection image as an upright crop, found by its pixels (`locateCrop`). */
export interface CropPlacement {
  /** Collection image pixel → query pixel (3x3, row-major): a scale and a shift. */
  transform: Homography;
  /**
   * How well the grey levels agree at the placement, at FINE_SIDE: placed by correlation, their normalised
   * cross-correlation (-1-1); by levels, their `levelAgreement` (1 the same levels, 0 LEVEL_SCALE apart).
   */
  agreement: number;
}

/** The OpenCV matrix members used here. */
interface Mat {
  cols: number;
  rows: number;
  roi(rect: unknown): Mat;
  delete(): void;
}
type Track = <M extends { delete(): void }>(m: M) => M;

/** A template placement at a search size: the template's size and top-left corner, and its agreement. */
interface Placement {
  /** The target shrunk by this factor. */
  targetScale: number;
  width: number;
  height: number;
  x: number;
  y: number;
  /** As CropPlacement's. */
  agreement: number;
}

/**
 * The placement of `query` as an upright crop of `target` (any size of it, kept whole, down to SMALLEST_SHARE of the
 * width) whose grey levels agree best (`by`: correlate, or differ least), by template matching (grey: a third of
 * colour's time, and the pixel check that follows sees the colours): over the sizes at COARSE_SIDE, then refined at
 * FINE_SIDE around the best (both `sideScale` times larger, no larger than the target: TEXTURE_SIDE_SCALE for patterns
 * finer than COARSE_SIDE shows). For copies that keep too few corners for a feature fit (smooth artwork, crops of a
 * repeated pattern, where every descriptor has a twin), pixels place them where features cannot. It only proposes a
 * placement; a pixel check decides whether it is a copy. Null when the query fits inside the target at no searched
 * size, or agrees under MIN_COARSE_CORRELATION (MIN_COARSE_LEVEL_AGREEMENT by levels) wherever it fits.
 */
export async function locateCrop(query: GrayImage, target: GrayImage, by: PlacedBy = 'correlation', sideScale = 1): Promise<CropPlacement | null> {
  const { cv } = await loadOpenCv();
  return withMats((track) => {
    const templates = templatesOf(cv, query);
    const targetGrey = track(cv.matFromArray(target.height, target.width, cv.CV_8UC1, target.data));
    const scaleTo = (side: number) => Math.min(1, (side * sideScale) / Math.max(target.width, target.height));
    const coarse = searchSizes(cv, track, templates, targetGrey, scaleTo(COARSE_SIDE), by, sideScale > 1 ? TEXTURE_SHARE_STEP : SHARE_STEP);
    if (!coarse || coarse.agreement < (by === 'levels' ? MIN_COARSE_LEVEL_AGREEMENT : MIN_COARSE_CORRELATION)) return null;
    return refine(cv, track, templates, targetGrey, coarse, scaleTo(FINE_SIDE), by);
  });
}

/** The coarse search, over widths `shareStep` apart: the query shrunk once to about twice its largest template, then to each template size. */
function searchSizes(cv: Cv, track: Track, query: QueryTemplates, target: Mat, targetScale: number, by: PlacedBy, shareStep: number): Placement | null {
  const image = shrunk(cv, track, target, Math.max(1, Math.round(target.cols * targetScale)), Math.max(1, Math.round(target.rows * targetScale)));
  const aspect = query.grey.rows / query.grey.cols;
  const sizes: Array<[number, number]> = [];
  for (let share = 1; share >= SMALLEST_SHARE; share /= shareStep) {
    const width = Math.round(image.cols * share);
    sizes.push([width, Math.round(width * aspect)]);
  }
  // A query taller than the target's shape at full width fits by its height.
  if (aspect * image.cols > image.rows) {
    for (let share = 1; share >= SMALLEST_SHARE; share /= shareStep) sizes.push([Math.round((image.rows * share) / aspect), Math.round(image.rows * share)]);
  }
  return bestPlacement(cv, track, image, query, Math.max(...sizes.map(([w]) => w)), sizes, targetScale, by);
}

/** The coarse placement refined: the sizes around it, at FINE_SIDE, within REFINE_MARGIN of it. */
function refine(cv: Cv, track: Track, query: QueryTemplates, target: Mat, coarse: Placement, targetScale: number, by: PlacedBy): CropPlacement {
  const width = Math.max(1, Math.round(target.cols * targetScale));
  const height = Math.max(1, Math.round(target.rows * targetScale));
  const image = shrunk(cv, track, target, width, height);
  const ratio = targetScale / coarse.targetScale;
  const sizes = REFINE_SCALES.map((s): [number, number] => [Math.round(coarse.width * ratio * s), Math.round(coarse.height * ratio * s)]);
  const [largestWidth, largestHeight] = sizes[sizes.length - 1];
  const left = Math.max(0, Math.round(coarse.x * ratio) - REFINE_MARGIN);
  const top = Math.max(0, Math.round(coarse.y * ratio) - REFINE_MARGIN);
  const right = Math.min(width, Math.round(coarse.x * ratio) + largestWidth + REFINE_MARGIN);
  const bottom = Math.min(height, Math.round(coarse.y * ratio) + largestHeight + REFINE_MARGIN);
  const window = track(image.roi(new cv.Rect(left, top, right - left, bottom - top)));
  const fine = bestPlacement(cv, track, window, query, largestWidth, sizes, targetScale, by, [left, top]) ?? rescaled(coarse, ratio);
  // Query pixel (u, v) lies at target pixel ((x + u·kx) / s, (y + v·ky) / s), kx and ky the template's shrink.
  const kx = fine.width / query.grey.cols;
  const ky = fine.height / query.grey.rows;
  return { transform: [targetScale / kx, 0, -fine.x / kx, 0, targetScale / ky, -fine.y / ky, 0, 0, 1], agreement: fine.agreement };
}

/**
 * The best placement over the template sizes in `image` (the target at `targetScale`), each template made from the
 * query reduced for templates up to `largestWidth` wide; null when none fits.
 */
function bestPlacement(cv: Cv, track: Track, image: Mat, query: QueryTemplates, largestWidth: number, sizes: Array<[number, number]>, targetScale: number, by: PlacedBy, offset: [number, number] = [0, 0]): Placement | null {
  let best: Placement | null = null;
  for (const [width, height] of sizes) {
    if (width > image.cols || height > image.rows || Math.min(width, height) < MIN_TEMPLATE_SIDE) continue;
    const scores = track(new cv.Mat());
    cv.matchTemplate(image, query.template(cv, track, largestWidth, width, height), scores, by === 'levels' ? cv.TM_SQDIFF : cv.TM_CCOEFF_NORMED);
    const { maxVal, maxLoc, minVal, minLoc } = cv.minMaxLoc(scores);
    const [score, at] = by === 'levels' ? [levelAgreement(minVal, width * height), minLoc] : [maxVal, maxLoc];
    // A flat template correlates as NaN or infinity: nothing to place by (its levels can still be compared).
    if (!Number.isFinite(score) || score > 1.0001) continue;
    if (!best || score > best.agreement) best = { targetScale, width, height, x: at.x + offset[0], y: at.y + offset[1], agreement: score };
  }
  return best;
}

/**
 * A sum of squared grey differences over `pixels` as an agreement of 1 (the same levels) down to 0 (LEVEL_SCALE levels
 * apart on average, root mean square) and below.
 */
function levelAgreement(squaredDifferences: number, pixels: number): number {
  // The FFT behind matchTemplate can leave a perfect fit's sum a hair below zero.
  return 1 - Math.sqrt(Math.max(0, squaredDifferences) / pixels) / LEVEL_SCALE;
}

/** `image` at `width` and its shape, blurred by BLUR_SIGMA. */
function shrunk(cv: Cv, track: Track, image: Mat, width: number, height: number): Mat {
  const out = track(new cv.Mat());
  cv.resize(image, out, new cv.Size(width, height), 0, 0, cv.INTER_AREA);
  cv.GaussianBlur(out, out, new cv.Size(0, 0), BLUR_SIGMA);
  return out;
}

/** Whether the query's grey pattern is finer than the coarse search shows (TEXTURE_*). */
export async function finerThanCoarse(query: GrayImage): Promise<boolean> {
  const { cv } = await loadOpenCv();
  return withMats((track) => {
    const templates = templatesOf(cv, query);
    templates.finerThanCoarse ??= patternFinerThanCoarse(cv, track, templates.grey);
    return templates.finerThanCoarse;
  });
}

/** `finerThanCoarse` of the query's grey levels `grey`. */
function patternFinerThanCoarse(cv: Cv, track: Track, grey: Mat): boolean {
  const variance = (width: number) => {
    const deviation = track(new cv.Mat());
    cv.meanStdDev(shrunk(cv, track, grey, width, Math.max(1, Math.round((width * grey.rows) / grey.cols))), track(new cv.Mat()), deviation);
    return (deviation.data64F[0] as number) ** 2;
  };
  const coarse = variance(TEXTURE_PROBE_WIDTH);
  const fine = variance(TEXTURE_PROBE_WIDTH * TEXTURE_SIDE_SCALE ** 2);
  return coarse < TEXTURE_FLAT_VARIANCE && fine >= Math.max(TEXTURE_FLAT_VARIANCE, TEXTURE_GAIN * coarse);
}

/**
 * Query images whose templates are kept (`templatesOf`): a search places one query in several collection images (and
 * in one image by correlation, then by levels, then at twice the sides), and a compute thread runs those placements one
 * after another, between the tasks of other searches running at once. Two keep another search's placements from
 * evicting a query's; a thread running more searches' placements at once makes templates as often as before.
 */
const KEPT_QUERIES = 2;
/**
 * Most pixels of reductions and templates kept per query (about 4 MB of the OpenCV heap): the coarse search's templates
 * are the same in every landscape collection image (their widths follow the search size's width), the refinement's
 * follow each coarse placement and are rarely met again. Past this, templates are made for the call and deleted.
 */
const KEPT_PIXELS = 4_000_000;

/**
 * The query's half of the template search, kept for its next placements: its grey levels as a Mat, the query reduced
 * once per largest template width (`reduced`), each template made from a reduction (shrunk to its size and blurred), and
 * whether its pattern is finer than the coarse search shows. In the matching benchmark's large sample, placements were
 * 15 % of the searches' CPU, and making templates (resizes and blurs) about 40 % of a placement; every one of them is
 * the same for every collection image of one shape. Made exactly as they would be for each call, so a placement does
 * not depend on what was placed before it.
 */
class QueryTemplates {
  readonly grey: Mat;
  finerThanCoarse?: boolean;
  private readonly reductions = new Map<number, Mat>();
  private readonly templates = new Map<string, Mat>();
  private keptPixels = 0;

  constructor(
    cv: Cv,
    readonly query: GrayImage,
  ) {
    this.grey = cv.matFromArray(query.height, query.width, cv.CV_8UC1, query.data);
  }

  /** The template `width` × `height` made from the query reduced for templates up to `largestWidth` wide. */
  template(cv: Cv, track: Track, largestWidth: number, width: number, height: number): Mat {
    const source = this.reduced(cv, track, largestWidth);
    const key = `${source.cols}:${width}x${height}`;
    const kept = this.templates.get(key);
    if (kept) return kept;
    // Tracked (deleted with the call) only when the budget does not keep it.
    const template = shrunk(cv, (m) => m, source, width, height);
    if (this.withinBudget(width * height)) this.templates.set(key, template);
    else track(template);
    return template;
  }

  delete(): void {
    for (const m of [this.grey, ...this.reductions.values(), ...this.templates.values()]) m.delete();
  }

  /** The query shrunk once to twice the largest template width (no larger than it is): each template is made from it. */
  private reduced(cv: Cv, track: Track, largestWidth: number): Mat {
    const width = Math.min(this.grey.cols, 2 * largestWidth);
    const kept = this.reductions.get(width);
    if (kept) return kept;
    const height = Math.max(1, Math.round((width * this.grey.rows) / this.grey.cols));
    const out = new cv.Mat();
    cv.resize(this.grey, out, new cv.Size(width, height), 0, 0, cv.INTER_AREA);
    if (this.withinBudget(width * height)) this.reductions.set(width, out);
    else track(out);
    return out;
  }

  /** Whether `pixels` more fit the query's budget (KEPT_PIXELS); counted as kept when they do. */
  private withinBudget(pixels: number): boolean {
    if (this.keptPixels + pixels > KEPT_PIXELS) return false;
    this.keptPixels += pixels;
    return true;
  }
}

/** The most recently placed queries' templates, most recent first (KEPT_QUERIES). */
const keptQueries: QueryTemplates[] = [];

/** The kept templates of `query` (the same grey levels), or new ones kept in place of the least recent. */
function templatesOf(cv: Cv, query: GrayImage): QueryTemplates {
  const index = keptQueries.findIndex((kept) => sameGrey(kept.query, query));
  const templates = index >= 0 ? keptQueries.splice(index, 1)[0] : new QueryTemplates(cv, { ...query, data: query.data.slice() });
  keptQueries.unshift(templates);
  for (const evicted of keptQueries.splice(KEPT_QUERIES)) evicted.delete();
  return templates;
}

function sameGrey(a: GrayImage, b: GrayImage): boolean {
  return a.width === b.width && a.height === b.height && Buffer.compare(bytes(a.data), bytes(b.data)) === 0;
}

function bytes(data: Uint8Array): Buffer {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

function rescaled(p: Placement, ratio: number): Placement {
  return { ...p, targetScale: p.targetScale * ratio, width: Math.round(p.width * ratio), height: Math.round(p.height * ratio), x: Math.round(p.x * ratio), y: Math.round(p.y * ratio) };
}
