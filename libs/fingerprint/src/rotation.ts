import { extractFeatures } from './features';
import { multiply, type Homography } from './geometry';
import { matchMetrics } from './match-metrics';
import { cropRgb, rgbToGray, type PixelBox } from './rgb';
import type { Features, GrayImage, MatchResult, RgbImage } from './types';

/** Bins of the edge-orientation histogram over 0-90° (orientations are folded modulo 90°): 0.5° each. */
const ORIENTATION_BINS = 180;
/** Half-width (bins) of the triangular smoothing of the histogram before its peak is taken. */
const SMOOTHING = 3;
/**
 * Orientations within this many degrees of the axes are not a rotation: upright structure, and the 8-px blocks of a
 * JPEG, whose edges would otherwise be the peak of a strongly compressed rotated copy.
 */
export const MIN_ROTATION_DEGREES = 3;
/**
 * Least peak of the histogram, as a multiple of its mean, that counts as a rotation. Copies of the benchmark's patterns,
 * smooth artwork and logos rotated by ±20° (a canvas with filled corners, or a crop of one and JPEG q40-50) that
 * the upright second chances found peaked at 2.7-34; the same images cropped or rescaled without a rotation mostly
 * peaked under 2.5 (a fine weave at 1.8-1.9), though diagonal designs (herringbone, some logos) peak far higher at
 * their own angle. Every query turned upright is another alignment for the second chances to accept, so none is tried
 * on the weakest evidence.
 */
export const MIN_ROTATION_STRENGTH = 2.5;

export interface DominantRotation {
  /** Degrees in (-45, 45]: the image's edges lie this far clockwise of the axes (modulo 90°). */
  angle: number;
  /** The histogram's peak over its mean (1 for edges in every direction). */
  strength: number;
}

/**
 * The rotation of an image's straight edges away from the axes: the peak of a histogram of gradient orientations
 * (weighted by magnitude, folded modulo 90°), excluding MIN_ROTATION_DEGREES around the axes. A copy rotated by θ shows
 * its own rows, letters and tile joints at θ, and the edges of the canvas a rotation fills; upright structure and JPEG
 * blocks stay at 0°. The gradients are Scharr's of the image smoothed once (binomial 3×3, in floating point): on tile
 * walls, smooth wallpapers and drawn scenes turned by 7-30° that finds the angle within 0.8°, where Scharr's of the raw
 * pixels were 0.4-7° off and Sobel's read 20° as 18.3° (smoothing in integers piled the flat areas' one-level steps up
 * at 45°). Reading a half-size image instead made a fine weave look turned by 5-9°.
 */
export function dominantRotation(gray: GrayImage): DominantRotation {
  const { width, height } = gray;
  const data = binomialSmoothed(gray);
  const histogram = new Float64Array(ORIENTATION_BINS);
  // Every other pixel of every other row (alternating columns), each with its full-resolution gradient: a quarter of
  // the work for a sample of the same orientations.
  for (let y = 2; y < height - 2; y += 2) {
    for (let x = 2 + ((y >> 1) & 1); x < width - 2; x += 2) {
      const i = y * width + x;
      const gx = 3 * (data[i - width + 1] - data[i - width - 1] + data[i + width + 1] - data[i + width - 1]) + 10 * (data[i + 1] - data[i - 1]);
      const gy = 3 * (data[i + width - 1] - data[i - width - 1] + data[i + width + 1] - data[i - width + 1]) + 10 * (data[i + width] - data[i - width]);
      if (gx === 0 && gy === 0) continue;
      histogram[binOf(folded(gx, gy))] += Math.sqrt(gx * gx + gy * gy);
    }
  }
  return histogramPeak(histogram);
}

/** Degrees of a direction (dx, dy) folded modulo 90°, in [0, 90): an edge and its gradient fold to the same value. */
function folded(dx: number, dy: number): number {
  const degrees = (Math.atan2(dy, dx) * 180) / Math.PI;
  return ((degrees % 90) + 90) % 90;
}

const binOf = (foldedDegrees: number) => Math.min(ORIENTATION_BINS - 1, Math.floor((foldedDegrees / 90) * ORIENTATION_BINS));

/** The rotation an orientation histogram (ORIENTATION_BINS over 0-90°) peaks at, off the axes, and how sharply. */
function histogramPeak(histogram: Float64Array): DominantRotation {
  const smoothed = new Float64Array(ORIENTATION_BINS);
  for (let b = 0; b < ORIENTATION_BINS; b++) {
    for (let k = -SMOOTHING; k <= SMOOTHING; k++) smoothed[b] += histogram[(b + k + ORIENTATION_BINS) % ORIENTATION_BINS] * (SMOOTHING + 1 - Math.abs(k));
  }
  const axisBins = Math.round((MIN_ROTATION_DEGREES / 90) * ORIENTATION_BINS);
  let peak = axisBins;
  for (let b = axisBins; b < ORIENTATION_BINS - axisBins; b++) if (smoothed[b] > smoothed[peak]) peak = b;
  let total = 0;
  for (const v of smoothed) total += v;
  if (total === 0) return { angle: 0, strength: 0 };
  // Parabolic interpolation between the peak bin and its neighbours.
  const [left, centre, right] = [smoothed[peak - 1], smoothed[peak], smoothed[peak + 1]];
  const curvature = left - 2 * centre + right;
  const offset = curvature !== 0 ? (0.5 * (left - right)) / curvature : 0;
  const degrees = ((peak + 0.5 + offset) * 90) / ORIENTATION_BINS;
  return { angle: degrees > 45 ? degrees - 90 : degrees, strength: (centre * ORIENTATION_BINS) / total };
}

/** Grey levels within which a pixel counts as the fill of a rotated canvas's corners (JPEG noise on a flat fill included). */
const FILL_TOLERANCE = 12;
/**
 * Levels, in any one channel, within which a pixel of the fill's grey level still counts as the fill. Wood grain on a
 * grey canvas is 122-145 in grey against the fill's 128, and 50 levels and more off it in red and blue: in grey alone
 * the scans ran past the canvas edges, its rotation went unread, and the grain's own was read (10.6° for 20°). Not
 * FILL_TOLERANCE: JPEG keeps colour at half resolution and blurs it a pixel or two into the fill, and at 12 levels the
 * edges of a crossed lattice's copy (q40) no longer agreed. Over the matching benchmark's family images turned on a
 * grey canvas (864 copies, FILL_EDGE_REFINE_STEP), 24 levels read every canvas, none more than 0.2° off; 36 read one
 * soft wallpaper 0.33° off.
 */
const FILL_COLOUR_TOLERANCE = 24;
/** Rows (or columns) between the two points of a canvas edge whose direction is read: long enough to average its JPEG steps. */
const FILL_EDGE_STEP = 32;
/**
 * Rows (or columns) between the two points of a canvas edge whose directions refine the rotation once its peak is
 * found. A point's reach is read to a whole pixel, and JPEG blurs the edge a pixel or so either way: over
 * FILL_EDGE_STEP that is 1.8° a direction, and the mean of such directions can be off by half a degree, enough for a
 * stripe copy turned upright to drift off its stripes along its length (a pixel every 115 px). On the matching
 * benchmark's family images turned ±20° on a grey canvas (432 copies: rotations, and crops rotated and re-encoded),
 * colour and this baseline read none more than 0.3° off (p99 0.12°, at most 0.17°), where grey levels and 32 rows read
 * 9 (4 of them by 4.7-45°: wood grain and herringbone whose canvas was not found); turned by 4.5-35° instead, none of
 * 432 (at most 0.2°) against 15 of 430 and 2 not read.
 */
const FILL_EDGE_REFINE_STEP = 128;
/** Directions read along the canvas edges that a fill rotation needs, and the share that must agree with its peak. */
const MIN_FILL_EDGE_SAMPLES = 40;
const MIN_FILL_EDGE_AGREEMENT = 0.5;
/** Degrees around its peak within which a canvas edge direction agrees with it. */
const FILL_EDGE_AGREEMENT_DEGREES = 3;

/**
 * The rotation of a copy rotated onto a larger canvas, read off the edges of its filled corners; null when the image
 * has no such corners (its four corner pixels not of one colour) or their edges are not straight and of one direction.
 * Where the image's own edges have a stronger direction than its rotation (wood grain, a diagonal lattice, stripes),
 * `dominantRotation` reads theirs: of the 10 rotated pattern copies the matching benchmark's families missed, it read 6
 * 4-45° off (wood grain at 10-16°, a tile lattice's diagonals at -25°, stripes at 10° for -20°), while their canvas
 * edges lie exactly at the rotation. Each scan from a side to the first pixel off the fill traces those edges (two per
 * corner); a direction is read between scan points FILL_EDGE_STEP rows or columns apart, they must agree at one peak,
 * and directions read FILL_EDGE_REFINE_STEP apart refine it.
 */
export function fillEdgeRotation(rgb: RgbImage): DominantRotation | null {
  const { data, width, height } = rgb;
  if (width < 4 * FILL_EDGE_STEP || height < 4 * FILL_EDGE_STEP) return null;
  // One pixel in from each corner: the outermost row and column of a JPEG carry its edge artefacts.
  const corners = [width + 1, 2 * width - 2, (height - 2) * width + 1, (height - 1) * width - 2];
  // Per channel, the second darkest of the four: one corner may be off the fill, and then the image has no canvas.
  const fill = [0, 1, 2].map((ch) => corners.map((p) => data[3 * p + ch]).sort((a, b) => a - b)[1]);
  const greyOf = (p: number) => 0.299 * data[3 * p] + 0.587 * data[3 * p + 1] + 0.114 * data[3 * p + 2];
  const fillGrey = 0.299 * fill[0] + 0.587 * fill[1] + 0.114 * fill[2];
  const offFill = (p: number) =>
    Math.abs(greyOf(p) - fillGrey) > FILL_TOLERANCE ||
    Math.abs(data[3 * p] - fill[0]) > FILL_COLOUR_TOLERANCE ||
    Math.abs(data[3 * p + 1] - fill[1]) > FILL_COLOUR_TOLERANCE ||
    Math.abs(data[3 * p + 2] - fill[2]) > FILL_COLOUR_TOLERANCE;
  if (corners.some(offFill)) return null;
  /** Per line, how many of its `extent` pixels, from `first(line)` on and `stride` apart, are fill. */
  const fillReach = (lines: number, extent: number, first: (line: number) => number, stride: number) => {
    const reach = new Int32Array(lines);
    for (let line = 0; line < lines; line++) {
      let k = 0;
      for (let i = first(line); k < extent && !offFill(i); i += stride) k++;
      reach[line] = k;
    }
    return reach;
  };
  // Per row from the left and the right, per column from the top and the bottom: how far the fill reaches in.
  const scans = [true, false].flatMap((fromStart) => [
    { rows: true, fromStart, extent: width, reach: fillReach(height, width, (y) => y * width + (fromStart ? 0 : width - 1), fromStart ? 1 : -1) },
    { rows: false, fromStart, extent: height, reach: fillReach(width, height, (x) => (fromStart ? 0 : (height - 1) * width) + x, fromStart ? width : -width) },
  ]);
  /** The directions of the canvas edges, each read between two scan points `step` rows or columns apart. */
  const directions = (step: number) => {
    const read: number[] = [];
    for (const { reach, extent, rows, fromStart } of scans) {
      for (let t = 0; t + step < reach.length; t++) {
        const [a, b] = [reach[t], reach[t + step]];
        // Both points on a corner's edge: fill before them, content at them (a line of fill only is no edge).
        if (a === 0 || b === 0 || a >= extent / 2 || b >= extent / 2) continue;
        // Reach from the far side runs against the coordinate.
        const across = fromStart ? b - a : a - b;
        read.push(rows ? folded(across, step) : folded(step, across));
      }
    }
    return read;
  };
  const samples = directions(FILL_EDGE_STEP);
  if (samples.length < MIN_FILL_EDGE_SAMPLES) return null;
  const histogram = new Float64Array(ORIENTATION_BINS);
  for (const direction of samples) histogram[binOf(direction)]++;
  const peak = histogramPeak(histogram);
  const peakFolded = (peak.angle + 90) % 90;
  /** Each direction's offset from the peak, across the 0°/90° fold, when it agrees with it. */
  const agreeing = (read: number[]) => read.map((d) => ((d - peakFolded + 135) % 90) - 45).filter((offset) => Math.abs(offset) <= FILL_EDGE_AGREEMENT_DEGREES);
  const agreed = agreeing(samples);
  if (agreed.length < MIN_FILL_EDGE_AGREEMENT * samples.length) return null;
  // Their mean refines the peak beyond the bins' steps, over the longer baseline where the edges are long enough.
  const refined = agreeing(directions(FILL_EDGE_REFINE_STEP));
  const offsets = refined.length >= MIN_FILL_EDGE_SAMPLES ? refined : agreed;
  return { angle: peak.angle + offsets.reduce((sum, offset) => sum + offset, 0) / offsets.length, strength: peak.strength };
}

/** The grey image smoothed by the 3×3 binomial kernel, in floating point; the outermost pixels are left at 0. */
function binomialSmoothed(gray: GrayImage): Float32Array {
  const { data, width, height } = gray;
  const rows = new Float32Array(data.length);
  for (let y = 0; y < height; y++) {
    for (let x = 1; x < width - 1; x++) {
      const i = y * width + x;
      rows[i] = data[i - 1] + 2 * data[i] + data[i + 1];
    }
  }
  const out = new Float32Array(data.length);
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const i = y * width + x;
      out[i] = (rows[i - width] + 2 * rows[i] + rows[i + width]) / 16;
    }
  }
  return out;
}

export interface Derotated {
  rgb: RgbImage;
  gray: GrayImage;
  /** Maps the derotated image's pixels to the rotated image's (3x3, row-major). */
  toRotated: Homography;
}

/**
 * Turns an image rotated clockwise by `angle` degrees back upright, cut to the largest upright rectangle whose rotation
 * fits the image exactly: for a copy rotated onto a larger canvas (filled corners) that is the copy's own frame, and
 * for any other rotated image a frame whose corners touch its edges, so no pixel is invented. Bilinear sampling.
 * Null when no such rectangle exists (a nearly square image turned by nearly 45°) or it would be tiny.
 */
export function derotate(rgb: RgbImage, angle: number): Derotated | null {
  if (rgb.width < 2 || rgb.height < 2) return null;
  const radians = (angle * Math.PI) / 180;
  const cos = Math.cos(radians);
  const sin = Math.sin(radians);
  const [c, s] = [Math.abs(cos), Math.abs(sin)];
  // A w × h frame turned by the angle spans exactly width × height: width = w c + h s, height = w s + h c.
  const determinant = c * c - s * s;
  if (determinant < 0.05) return null;
  const width = Math.floor((rgb.width * c - rgb.height * s) / determinant);
  const height = Math.floor((rgb.height * c - rgb.width * s) / determinant);
  if (width < 32 || height < 32) return null;
  // Derotated pixel d maps to rotated pixel q = R(angle) (d - centre of d) + centre of q.
  const [dx, dy] = [(width - 1) / 2, (height - 1) / 2];
  const [qx, qy] = [(rgb.width - 1) / 2, (rgb.height - 1) / 2];
  const toRotated: Homography = [cos, -sin, qx - cos * dx + sin * dy, sin, cos, qy - sin * dx - cos * dy, 0, 0, 1];
  const out = new Uint8Array(width * height * 3);
  const src = rgb.data;
  const stride = rgb.width * 3;
  const [maxX, maxY] = [rgb.width - 1, rgb.height - 1];
  for (let y = 0, o = 0; y < height; y++) {
    // Along a row the source point moves by (cos, sin) per pixel.
    let sxRow = toRotated[1] * y + toRotated[2];
    let syRow = toRotated[4] * y + toRotated[5];
    for (let x = 0; x < width; x++, o += 3, sxRow += cos, syRow += sin) {
      const sx = sxRow < 0 ? 0 : sxRow > maxX ? maxX : sxRow;
      const sy = syRow < 0 ? 0 : syRow > maxY ? maxY : syRow;
      const x0 = Math.min(maxX - 1, sx | 0);
      const y0 = Math.min(maxY - 1, sy | 0);
      const fx = sx - x0;
      const fy = sy - y0;
      const i00 = y0 * stride + 3 * x0;
      const i01 = i00 + stride;
      for (let ch = 0; ch < 3; ch++) {
        const top = src[i00 + ch] + (src[i00 + 3 + ch] - src[i00 + ch]) * fx;
        const bottom = src[i01 + ch] + (src[i01 + 3 + ch] - src[i01 + ch]) * fx;
        out[o + ch] = top + (bottom - top) * fy + 0.5;
      }
    }
  }
  const upright = { data: out, width, height };
  return { rgb: upright, gray: rgbToGray(upright), toRotated };
}

/**
 * A match found for the upright image of `derotate`, told in the frame of the rotated image it was made from: its
 * transform composed with `toRotated`, and its overlaps and rectangles measured in the rotated image. Its score (and
 * so the evidence it stands on) is kept.
 */
export function matchInRotatedFrame(match: MatchResult, toRotated: Homography, rotated: Features, target: Features): MatchResult {
  const transform = multiply(toRotated, match.transform);
  return { ...matchMetrics(rotated, target, transform, match.inliers, match.flipped), score: match.score };
}

/**
 * The upright image of a copy whose edges show a rotation (`dominantRotation` of at least MIN_ROTATION_STRENGTH), with
 * the angle it was turned back by, and whether that rotation was read off a filled canvas's corners
 * (`fillEdgeRotation`) rather than the image's own edges; null for an image that shows none.
 */
export function uprightCopy(rgb: RgbImage, gray: GrayImage): (Derotated & { angle: number; onFilledCanvas: boolean }) | null {
  const canvas = fillEdgeRotation(rgb);
  const { angle, strength } = canvas ?? dominantRotation(gray);
  if (strength < MIN_ROTATION_STRENGTH || Math.abs(angle) < MIN_ROTATION_DEGREES) return null;
  const upright = derotate(rgb, angle);
  return upright && { ...upright, angle, onFilledCanvas: canvas !== null };
}

/** The bounds of an image's content: the imaging library's `findContentBox`. */
export type ContentBoxOf = (rgb: RgbImage) => PixelBox;

/**
 * `uprightCopy` of an image with the features of the upright copy (mirrored too with `includeMirror`, for flip
 * checks): what the second chances are given for a rotated query. Null for an image that shows no rotation.
 *
 * With `contentBox`, the upright copy is cut to its content as every image is when it is added or queried: a copy
 * rotated onto a larger canvas keeps, inside the canvas, the flat or smoothly shaded edges (a gradient's ends) that
 * the collection image lost to that cut, and with them a frame of another shape than the collection image's.
 */
export async function uprightEvidence(rgb: RgbImage, gray: GrayImage, includeMirror = false, contentBox?: ContentBoxOf): Promise<(Derotated & { features: Features; onFilledCanvas: boolean }) | null> {
  const turned = uprightCopy(rgb, gray);
  if (!turned) return null;
  const upright = contentBox ? cutTo(turned, contentBox(turned.rgb)) : turned;
  return { ...upright, features: await extractFeatures(upright.gray, { includeMirror }), onFilledCanvas: turned.onFilledCanvas };
}

/** An upright copy cut to `box`, its map to the rotated image moved by the cut. */
function cutTo(upright: Derotated, box: PixelBox): Derotated {
  const cut = cropRgb(upright.rgb, box);
  if (cut === upright.rgb) return upright;
  return { rgb: cut, gray: rgbToGray(cut), toRotated: multiply(upright.toRotated, [1, 0, box.left, 0, 1, box.top, 0, 0, 1]) };
}
