import { loadOpenCv, withMats, type Cv } from './opencv';
import { applyHomography, invert as invertHomography, multiply } from './geometry';
import { gradientMagnitude, maskedCorrelation } from './gradient-ncc';
import { isolatedPoints, isPointField, mostlyFlat, pointFieldsDiffer, POINT_SIGMA, SURROUND_SIGMA, type DetailPoint } from './point-field';
import type { MatchResult, RgbImage } from './types';

/** Longer side the comparison runs at, as `enhancedScore`: enough for edges, a few ms. */
const COMPARE_SIDE = 360;
/** Blur before gradients (px at COMPARE_SIDE): absorbs a pixel or two of misalignment. */
const BLUR_SIGMA = 1.2;
/** Pixels eroded from the warped outline so interpolation edges do not count as gradients. */
const EDGE_ERODE = 3;
/** Side (px at COMPARE_SIDE) of the cells compared one by one: about a word of a logo's name, a tenth of the frame. */
const CELL = 24;
/** Local gradient correlation at which a cell of the collection image counts as reproduced by the query. */
const CELL_AGREES = 0.5;

/** How the collection image's structure in the overlap is reproduced by the query, cell by cell. */
export interface DetailEvidence {
  /** Share of the collection image's gradient energy in the overlap that lies in cells the query reproduces. */
  explained: number;
  /** Gradient energy of the collection image in cells the query does not reproduce, per overlap pixel (grey levels). */
  contradicted: number;
}

/**
 * Extra blurs (px at COMPARE_SIDE, on top of BLUR_SIGMA) tried on the collection image to find the query's sharpness.
 * A σ4 blur of a 1600 px photo, the matching benchmark's strongest, is best matched at 2.25-3.
 */
const QUERY_BLURS = [0.75, 1.5, 2.25, 3, 4, 5];

/**
 * The query and the collection image warped onto it (`m.transform`, target → query) at COMPARE_SIDE, for comparing
 * their edges cell by cell over the overlap: which of the collection image's edges does the query reproduce? A copy
 * reproduces nearly all of them (what an overlay or JPEG noise adds lies in the query only), while another image sharing
 * one detail with the query (a word in the same font) has edges of its own elsewhere (its own mark and name) that the
 * query does not have. `targetScale`: the target's pixels relative to the size the fit refers to.
 */
export class AlignedDetail {
  /** Gradients of the warped collection image blurred as the query is (BLUR_SIGMA): what `evidence` compares. */
  private readonly targetGradients: Float32Array;

  private constructor(
    private readonly cv: Cv,
    private readonly queryGradients: Float32Array,
    /** The query at the comparison size, not blurred. */
    private readonly query: Uint8Array,
    /** The warped collection image, not yet blurred. */
    private readonly warped: Uint8Array,
    private readonly mask: Uint8Array,
    private readonly width: number,
    private readonly height: number,
  ) {
    this.targetGradients = this.blurredTargetGradients(0);
  }

  static async of(query: RgbImage, target: RgbImage, m: MatchResult, targetScale = 1): Promise<AlignedDetail> {
    const { cv } = await loadOpenCv();
    const s = Math.min(1, COMPARE_SIDE / Math.max(query.width, query.height));
    const w = Math.max(1, Math.round(query.width * s));
    const h = Math.max(1, Math.round(query.height * s));
    const toSmall = multiply(multiply([s, 0, 0, 0, s, 0, 0, 0, 1], m.transform), [1 / targetScale, 0, 0, 0, 1 / targetScale, 0, 0, 0, 1]);
    const { q, unblurred, t, mask } = withMats((track) => {
      const size = new cv.Size(w, h);
      const querySmall = track(new cv.Mat());
      cv.resize(track(greyOf(cv, query)), querySmall, size, 0, 0, cv.INTER_AREA);
      const warp = track(cv.matFromArray(3, 3, cv.CV_64F, toSmall));
      const warped = track(new cv.Mat());
      cv.warpPerspective(track(greyOf(cv, target)), warped, warp, size, cv.INTER_AREA, cv.BORDER_CONSTANT, new cv.Scalar(0));
      const ones = track(new cv.Mat(target.height, target.width, cv.CV_8UC1, new cv.Scalar(255)));
      const outline = track(new cv.Mat());
      cv.warpPerspective(ones, outline, warp, size, cv.INTER_NEAREST, cv.BORDER_CONSTANT, new cv.Scalar(0));
      cv.erode(outline, outline, track(cv.Mat.ones(2 * EDGE_ERODE + 1, 2 * EDGE_ERODE + 1, cv.CV_8U)));
      const unblurred = Uint8Array.from(querySmall.data as Uint8Array);
      cv.GaussianBlur(querySmall, querySmall, new cv.Size(0, 0), BLUR_SIGMA);
      return { q: Uint8Array.from(querySmall.data as Uint8Array), unblurred, t: Uint8Array.from(warped.data as Uint8Array), mask: Uint8Array.from(outline.data as Uint8Array) };
    });
    return new AlignedDetail(cv, gradientMagnitude(q, w, h), unblurred, t, mask, w, h);
  }

  /** How the query reproduces the collection image's edges. */
  evidence(): DetailEvidence {
    return this.agreement(this.targetGradients);
  }

  /**
   * `evidence` with the collection image blurred to the query's sharpness: the extra blur (of QUERY_BLURS, or none)
   * whose gradients correlate best with the query's over the overlap. A blurred copy reproduces the collection image's
   * edges only as blurred; another image's own edges stay its own at any blur.
   */
  evidenceAtQuerySharpness(): DetailEvidence {
    let best = { gradients: this.targetGradients, correlation: maskedCorrelation(this.queryGradients, this.targetGradients, this.mask) };
    for (const blur of QUERY_BLURS) {
      const gradients = this.blurredTargetGradients(blur);
      const correlation = maskedCorrelation(this.queryGradients, gradients, this.mask);
      if (correlation > best.correlation) best = { gradients, correlation };
    }
    return this.agreement(best.gradients);
  }

  /**
   * Whether the two are different point fields (`pointFieldsDiffer`): the query's overlap mostly flat, and the isolated
   * points of the two (stars) not where each other's are.
   */
  pointFieldsDiffer(): boolean {
    if (!mostlyFlat(this.queryGradients, this.mask)) return false;
    const queryPoints = this.points(this.query);
    if (!isPointField(queryPoints)) return false;
    return pointFieldsDiffer(queryPoints, this.points(this.warped), { x: this.width / 2, y: this.height / 2 });
  }

  /** The isolated points of a grey image at the comparison size, over the overlap. */
  private points(grey: Uint8Array): DetailPoint[] {
    const { cv, width, height } = this;
    const response = withMats((track) => {
      const image = track(new cv.Mat());
      track(cv.matFromArray(height, width, cv.CV_8UC1, grey)).convertTo(image, cv.CV_32F);
      const point = track(new cv.Mat());
      const surround = track(new cv.Mat());
      cv.GaussianBlur(image, point, new cv.Size(0, 0), POINT_SIGMA);
      cv.GaussianBlur(image, surround, new cv.Size(0, 0), SURROUND_SIGMA);
      const difference = track(new cv.Mat());
      cv.absdiff(point, surround, difference);
      return Float32Array.from(difference.data32F as Float32Array);
    });
    return isolatedPoints(response, this.mask, width, height);
  }

  private agreement(targetGradients: Float32Array): DetailEvidence {
    return cellAgreement(this.queryGradients, targetGradients, this.mask, this.width, this.height);
  }

  /** Gradients of the warped collection image blurred `extraBlur` px more than the query. */
  private blurredTargetGradients(extraBlur: number): Float32Array {
    const { cv, width, height } = this;
    const blurred = withMats((track) => {
      const out = track(new cv.Mat());
      cv.GaussianBlur(track(cv.matFromArray(height, width, cv.CV_8UC1, this.warped)), out, new cv.Size(0, 0), Math.hypot(BLUR_SIGMA, extraBlur));
      return Uint8Array.from(out.data as Uint8Array);
    });
    return gradientMagnitude(blurred, width, height);
  }
}

/** `DetailEvidence` of two gradient-magnitude images over the pixels where `mask` is set, cells of CELL px. */
export function cellAgreement(query: Float32Array, target: Float32Array, mask: Uint8Array, w: number, h: number): DetailEvidence {
  let total = 0;
  let explained = 0;
  let pixels = 0;
  for (let y0 = 0; y0 < h; y0 += CELL) {
    for (let x0 = 0; x0 < w; x0 += CELL) {
      let n = 0, sq = 0, st = 0;
      for (let y = y0; y < Math.min(h, y0 + CELL); y++) {
        for (let x = x0; x < Math.min(w, x0 + CELL); x++) {
          const i = y * w + x;
          if (!mask[i]) continue;
          n++;
          sq += query[i];
          st += target[i];
        }
      }
      pixels += n;
      // Cells mostly outside the overlap are too small to judge; their energy is left out of both sums.
      if (n < (CELL * CELL) / 2) continue;
      const mq = sq / n, mt = st / n;
      let cov = 0, vq = 0, vt = 0;
      for (let y = y0; y < Math.min(h, y0 + CELL); y++) {
        for (let x = x0; x < Math.min(w, x0 + CELL); x++) {
          const i = y * w + x;
          if (!mask[i]) continue;
          const a = query[i] - mq, b = target[i] - mt;
          cov += a * b;
          vq += a * a;
          vt += b * b;
        }
      }
      total += st;
      if (vq > 0 && vt > 0 && cov / Math.sqrt(vq * vt) >= CELL_AGREES) explained += st;
    }
  }
  return { explained: total > 0 ? explained / total : 1, contradicted: pixels > 0 ? (total - explained) / pixels : 0 };
}

function greyOf(cv: Cv, img: RgbImage): Cv {
  const rgb = cv.matFromArray(img.height, img.width, cv.CV_8UC3, img.data);
  try {
    const grey = new cv.Mat();
    cv.cvtColor(rgb, grey, cv.COLOR_RGB2GRAY);
    return grey;
  } finally {
    rgb.delete();
  }
}

/** Grid of query samples the hues are compared on. */
const HUE_GRID = 48;
/** Least saturation and value (0-1) of both pixels for their hues to be compared: greys and darks have no reliable hue. */
const HUE_MIN_SATURATION = 0.3;
const HUE_MIN_VALUE = 0.25;

/** Hue (degrees) and saturation, value (0-1) of an RGB pixel. */
function hsv(r: number, g: number, b: number): [number, number, number] {
  const max = Math.max(r, g, b), min = Math.min(r, g, b), d = max - min;
  if (max === 0) return [0, 0, 0];
  let hue = 0;
  if (d > 0) {
    if (max === r) hue = ((g - b) / d) % 6;
    else if (max === g) hue = (b - r) / d + 2;
    else hue = (r - g) / d + 4;
  }
  return [(hue * 60 + 360) % 360, d / max, max / 255];
}

/**
 * Mean hue difference (degrees, 0-180) between the query and the collection image aligned by the fit, over the grid
 * samples where both are saturated; `samples` says how many counted (0: no colour to compare).
 */
export function hueDifference(query: RgbImage, target: RgbImage, m: MatchResult, targetScale = 1): { degrees: number; samples: number } {
  const back = invertHomography(m.transform);
  let sum = 0, n = 0;
  for (let j = 0; j < HUE_GRID; j++) {
    for (let i = 0; i < HUE_GRID; i++) {
      const x = Math.floor(((i + 0.5) * query.width) / HUE_GRID);
      const y = Math.floor(((j + 0.5) * query.height) / HUE_GRID);
      const [tx, ty] = applyHomography(back, x, y);
      const u = Math.round(tx * targetScale), v = Math.round(ty * targetScale);
      if (u < 0 || v < 0 || u >= target.width || v >= target.height) continue;
      const qi = 3 * (y * query.width + x), ti = 3 * (v * target.width + u);
      const [qh, qs, qv] = hsv(query.data[qi], query.data[qi + 1], query.data[qi + 2]);
      const [th, ts, tv] = hsv(target.data[ti], target.data[ti + 1], target.data[ti + 2]);
      if (qs < HUE_MIN_SATURATION || ts < HUE_MIN_SATURATION || qv < HUE_MIN_VALUE || tv < HUE_MIN_VALUE) continue;
      const d = Math.abs(qh - th);
      sum += Math.min(d, 360 - d);
      n++;
    }
  }
  return { degrees: n > 0 ? sum / n : 0, samples: n };
}

/**
 * Largest mean hue difference (degrees) of a concentrated fit over at least HUE_MIN_SAMPLES saturated samples, and over
 * at least HUE_FEW_SAMPLES. Copies of the hard-copy families (crops, ±20° rotations, JPEG q30-50) measured 0.1-7.7°;
 * benchmark photos up to 12.1° over 50 samples (a faint wallpaper at contrast +40 %) and 13.8-15.4° over 3-14 samples;
 * logos and badges of one design in other colours, fitting on their shared mark or tagline, 14.9-172° (39-1,314 samples,
 * the fewest after ±20° rotations: 39-48 samples at 56-104°).
 */
export const SHARED_DETAIL_MAX_HUE = 14;
const HUE_MIN_SAMPLES = 40;
const SHARED_DETAIL_MAX_HUE_FEW = 30;
const HUE_FEW_SAMPLES = 20;
/**
 * Whether the aligned images' mean hues differ by more than `maxDegrees` over at least HUE_MIN_SAMPLES saturated samples,
 * or by more than SHARED_DETAIL_MAX_HUE_FEW (or `maxDegrees` when larger) over at least HUE_FEW_SAMPLES.
 */
export function huesDisagree(query: RgbImage, target: RgbImage, fit: MatchResult, targetScale = 1, maxDegrees = SHARED_DETAIL_MAX_HUE): boolean {
  const hue = hueDifference(query, target, fit, targetScale);
  return (hue.samples >= HUE_MIN_SAMPLES && hue.degrees > maxDegrees) || (hue.samples >= HUE_FEW_SAMPLES && hue.degrees > Math.max(maxDegrees, SHARED_DETAIL_MAX_HUE_FEW));
}

/**
 * A concentrated fit whose collection image has edges of its own that the query does not reproduce: under this share of
 * its edge energy reproduced and over SHARED_DETAIL_MAX_CONTRADICTED grey levels per overlap pixel left unreproduced
 * (the check that does not need colour). Of 162 concentrated fits of copies (families and photos), none was under both:
 * the least reproduced 0.32 (a faint wallpaper at contrast +40 %, 0.75 unreproduced), the most unreproduced 2.1 (0.53
 * reproduced: rotated JPEG crops of logos blur small text); it alone refuses 43 of the 133 false fits of shared designs (the hue check all 133).
 */
export const SHARED_DETAIL_MIN_EXPLAINED = 0.3;
export const SHARED_DETAIL_MAX_CONTRADICTED = 2;
/**
 * A fit the edges refuse stands when, with the collection image blurred to the query's sharpness, at least this share of
 * its edge energy is reproduced: a blurred copy loses the fine edges, not its image. Blurred copies (σ4 of a 1600 px
 * photo) that the edges refused, or nearly (0.24-0.47 reproduced, 2.1-6.7 unreproduced), reproduce 0.87-0.99 at their
 * sharpness; the false fits of shared designs that the edges refuse reproduce at most 0.29 at theirs.
 */
export const SHARED_DETAIL_MIN_EXPLAINED_BLURRED = 0.6;

/** Whether the collection image has edges of its own that the query lacks, at the query's sharpness too. */
export function edgesContradict(aligned: AlignedDetail): boolean {
  const detail = aligned.evidence();
  if (detail.explained >= SHARED_DETAIL_MIN_EXPLAINED || detail.contradicted <= SHARED_DETAIL_MAX_CONTRADICTED) return false;
  return aligned.evidenceAtQuerySharpness().explained < SHARED_DETAIL_MIN_EXPLAINED_BLURRED;
}

/**
 * The pixel check of a fit flagged `concentrated` by verification (its inliers cover a small part of the overlap): it
 * stands when the aligned images have the same colours where both are coloured and the collection image has no
 * structure of its own in the overlap that the query lacks. Two logos of one design sharing a mark and a tagline in one
 * font fail it (other colours, another name); a crop, a rotation or an overlay of the same image passes. The result is
 * the fit without the flag, or null. Fits not flagged are returned as they are. `targetScale`: the target's pixels
 * relative to the size the fit refers to; `aligned`: the pair already aligned by the fit, when the caller has it.
 */
export async function confirmSharedDetail(query: RgbImage, target: RgbImage, fit: MatchResult, targetScale = 1, aligned?: AlignedDetail): Promise<MatchResult | null> {
  if (!fit.concentrated) return fit;
  if (huesDisagree(query, target, fit, targetScale)) return null;
  if (edgesContradict(aligned ?? (await AlignedDetail.of(query, target, fit, targetScale)))) return null;
  const { concentrated: _flag, ...confirmed } = fit;
  return confirmed;
}
