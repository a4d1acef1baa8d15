import { loadOpenCv, withMats, type Cv } from './opencv';
import { DESCRIPTOR_BYTES } from './hamming';
import type { Features, GrayImage } from './types';
import { selectSpread } from './spread';

/**
 * Keypoints kept per image. Pastec keeps ~1000 ORB points on ~600 px images; fewer made 25 % crops and
 * 0.3x scales fall under the inlier floor in our tests, more costs linear time in matching and index memory
 * for little gain.
 */
export const TARGET_FEATURES = 1000;

/** ORB is asked for this many times the kept count, so the grid selection has weaker cells to pick from. */
const OVERDETECT = 3;
/**
 * Smallest side the detector works on. ORB ignores a 31 px border at every pyramid level, so tiny queries
 * (a 0.3x scale of a 600 px image is 180 px) keep almost nothing unless upsampled first.
 */
const MIN_WORKING_SIDE = 480;
/** Largest smallest side the detector works on; beyond it time grows with no benefit at the 600 px norm. */
const MAX_WORKING_SIDE = 900;
/** ORB pyramid: 8 levels of 1.2 cover a 3.6x scale range, the default and what Pastec uses. */
const PYRAMID_LEVELS = 8;
const PYRAMID_SCALE = 1.2;
/** Border ORB skips; equal to the patch size, as the descriptor needs the whole patch. */
const EDGE_THRESHOLD = 31;
const PATCH_SIZE = 31;
/** FAST threshold below the default 20 so blurred and low-contrast (JPEG q10) images still yield corners. */
const FAST_THRESHOLD = 12;
/**
 * Below this many keypoints an image is low-texture (a smooth wallpaper, a faint nebula): detection is repeated on a
 * locally contrast-equalised copy (CLAHE) with a lower FAST threshold, and the richer result kept. Textured images
 * never take this path, so their features do not change.
 */
const LOW_TEXTURE_POINTS = 200;
const LOW_TEXTURE_FAST_THRESHOLD = 5;
const CLAHE_CLIP_LIMIT = 2;
const CLAHE_TILES = 8;

export interface ExtractOptions {
  maxFeatures?: number;
  /** Also extract the horizontally mirrored image's features (for `checkHorizontalFlip`). Default false. */
  includeMirror?: boolean;
  /**
   * Smallest side the detector works on (default MIN_WORKING_SIDE): a smaller image is enlarged to it first.
   * `NATIVE_SCALE_WORKING_SIDE` keeps a small query near its own scale (`isEnlargedForDetection`).
   */
  minWorkingSide?: number;
}

/**
 * Working side for a small query's second set of words: its own scale, unless it is smaller still. Enlarging a small
 * query to MIN_WORKING_SIDE suits a thumbnail of a whole image, whose stored copy is larger, but not a crop kept at its
 * image's scale: enlarged 1.9 times, a 256 px quarter of a 512 px photo has its finest pyramid levels where its image
 * has none: five such crops in 100,000 images ranked their true image 20th to 1,799th by votes, and four of them
 * ranked it first at their own scale (docs/benchmarks.md, "Session 22"). Half-size thumbnails ranked theirs first
 * enlarged and 982nd to beyond 5,000th at their own scale, so both are kept.
 */
export const NATIVE_SCALE_WORKING_SIDE = 256;

/** Whether `extractFeatures` enlarges an image of this size before detecting (with the default working side). */
export function isEnlargedForDetection(width: number, height: number): boolean {
  return workingScale(width, height, MIN_WORKING_SIDE) > 1;
}

/** Detects ORB keypoints spread over the image and their descriptors. Coordinates are in `img` pixels. */
export async function extractFeatures(img: GrayImage, opts: ExtractOptions = {}): Promise<Features> {
  const { cv } = await loadOpenCv();
  const maxFeatures = opts.maxFeatures ?? TARGET_FEATURES;
  const features = extractWith(cv, img, maxFeatures, opts.minWorkingSide);
  if (opts.includeMirror) features.mirrored = extractWith(cv, mirrorGray(img), maxFeatures);
  return features;
}

/** Flips a grey image left-right. */
export function mirrorGray(img: GrayImage): GrayImage {
  const { width, height, data } = img;
  const out = new Uint8Array(data.length);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) out[row + x] = data[row + width - 1 - x];
  }
  return { data: out, width, height };
}

function workingScale(width: number, height: number, minWorkingSide: number): number {
  const side = Math.min(width, height);
  if (side < minWorkingSide) return minWorkingSide / side;
  if (side > MAX_WORKING_SIDE) return MAX_WORKING_SIDE / side;
  return 1;
}

/** ORB corners of `image` (no descriptors yet: only the kept ones are described, see `describe`). */
function detect(cv: Cv, track: <T extends { delete(): void }>(m: T) => T, image: unknown, maxFeatures: number, fastThreshold: number) {
  const orb = track(
    new cv.ORB(maxFeatures * OVERDETECT, PYRAMID_SCALE, PYRAMID_LEVELS, EDGE_THRESHOLD, 0, 2, cv.ORB_HARRIS_SCORE, PATCH_SIZE, fastThreshold),
  );
  const keypoints = track(new cv.KeyPointVector());
  orb.detect(image, keypoints, track(new cv.Mat()));
  return { orb, image, keypoints };
}

type Detection = ReturnType<typeof detect>;

interface KeyPoint {
  pt: { x: number; y: number };
  size: number;
  angle: number;
  response: number;
  octave: number;
}

/**
 * ORB descriptors of `kept` (keypoints of `detection`), one row of DESCRIPTOR_BYTES per keypoint, in `kept` order.
 * Describing only the kept third instead of every detected corner gives the very same bytes for less work. OpenCV
 * regroups provided keypoints by pyramid level, so they are handed over already grouped (a stable sort by level) and
 * the rows mapped back.
 */
function describe(cv: Cv, track: <T extends { delete(): void }>(m: T) => T, detection: Detection, kept: readonly KeyPoint[]): Uint8Array {
  const byLevel = kept.map((_, i) => i).sort((a, b) => kept[a].octave - kept[b].octave || a - b);
  const wanted = track(new cv.KeyPointVector());
  for (const i of byLevel) wanted.push_back(kept[i]);
  const descriptors = track(new cv.Mat());
  detection.orb.compute(detection.image, wanted, descriptors);
  if (descriptors.rows !== kept.length) throw new Error(`ORB described ${descriptors.rows} of ${kept.length} keypoints it had detected`);
  const all: Uint8Array = descriptors.data;
  const out = new Uint8Array(kept.length * DESCRIPTOR_BYTES);
  byLevel.forEach((i, row) => out.set(all.subarray(row * DESCRIPTOR_BYTES, (row + 1) * DESCRIPTOR_BYTES), i * DESCRIPTOR_BYTES));
  return out;
}

function extractWith(cv: Cv, img: GrayImage, maxFeatures: number, minWorkingSide = MIN_WORKING_SIDE): Features {
  if (img.data.length !== img.width * img.height) throw new RangeError('GrayImage data length must be width*height');
  return withMats((track) => {
    const src = track(cv.matFromArray(img.height, img.width, cv.CV_8UC1, img.data));
    const scale = workingScale(img.width, img.height, minWorkingSide);
    let work = src;
    if (scale !== 1) {
      work = track(new cv.Mat());
      const interpolation = scale > 1 ? cv.INTER_LINEAR : cv.INTER_AREA;
      cv.resize(src, work, new cv.Size(Math.round(img.width * scale), Math.round(img.height * scale)), 0, 0, interpolation);
    }
    let detection = detect(cv, track, work, maxFeatures, FAST_THRESHOLD);
    if (detection.keypoints.size() < LOW_TEXTURE_POINTS) {
      const equalized = track(new cv.Mat());
      const clahe = track(new cv.CLAHE(CLAHE_CLIP_LIMIT, new cv.Size(CLAHE_TILES, CLAHE_TILES)));
      clahe.apply(work, equalized);
      const retry = detect(cv, track, equalized, maxFeatures, LOW_TEXTURE_FAST_THRESHOLD);
      if (retry.keypoints.size() > detection.keypoints.size()) detection = retry;
    }
    const { keypoints } = detection;

    const n = keypoints.size();
    const xs = new Float32Array(n);
    const ys = new Float32Array(n);
    const responses = new Float32Array(n);
    const raw: KeyPoint[] = [];
    for (let i = 0; i < n; i++) {
      const kp = keypoints.get(i);
      xs[i] = kp.pt.x / scale;
      ys[i] = kp.pt.y / scale;
      responses[i] = kp.response;
      raw.push(kp);
    }
    const chosen = selectSpread(xs, ys, responses, img.width, img.height, maxFeatures);
    const count = chosen.length;
    const xy = new Float32Array(count * 2);
    const meta = new Float32Array(count * 4);
    const desc = describe(cv, track, detection, chosen.map((k) => raw[k]));
    chosen.forEach((k, i) => {
      xy[2 * i] = xs[k];
      xy[2 * i + 1] = ys[k];
      meta[4 * i] = raw[k].size / scale;
      meta[4 * i + 1] = raw[k].angle;
      meta[4 * i + 2] = raw[k].response;
      meta[4 * i + 3] = raw[k].octave;
    });
    return { width: img.width, height: img.height, count, xy, meta, descriptors: desc };
  });
}
