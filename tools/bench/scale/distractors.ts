/**
 * Generated distractors for collections past what can be ingested on one machine in a session: images that look like
 * real photographs to the index, because they are made of real photographs' keypoints.
 *
 * A distractor is a collage of 3 to 6 patches, each a random rectangle (35-70 % of the sides) of one really ingested
 * image, moved to a random place of a 600 × 450 frame: the descriptors, their words, their scales, angles and their
 * arrangement inside a patch are those of a real photo, so word frequencies, the words two images share by chance,
 * and the geometric verification of a candidate cost and fail as they do for real photos. Patches are drawn from
 * images that no query shows (the benchmark's pool photos), so a distractor is never a true match.
 *
 * A distractor has pixels too (`distractorJpeg`): its patches cut from their images' stored normalised copies and laid
 * on a blurred, cornerless background, so the second chances that compare pixels (dense, whole image, placement)
 * read and compare them as they would a real image's.
 *
 * Everything follows from the distractor's number: the benchmark stores only its row and words, and synthesises its
 * features when a search verifies it, and its normalised copy when a search reads it.
 */
import { Features, seededRandom } from '@loupe/fingerprint';
import { NORMALIZED_JPEG_QUALITY } from '@loupe/jobs';
import sharp, { type OverlayOptions } from 'sharp';

export interface SourceImage {
  features: Features;
  /** One visual word per keypoint, in keypoint order. */
  words: Uint32Array;
  /** The share of its stored copy's pixels in each colour bin (`colourShares`). */
  colourShares: Float64Array;
  /** The blob key of its stored normalised JPEG, the frame its features' coordinates refer to. */
  normBlobKey: string;
}

const FRAME_WIDTH = 600;
const FRAME_HEIGHT = 450;
const MAX_KEYPOINTS = 1000;
/** Bytes of one ORB descriptor. */
const DESCRIPTOR_BYTES = 32;

export interface Distractor {
  features: Features;
  words: Uint32Array;
  /** Its patches, first to last (a later one covers an earlier one where they overlap). */
  patches: Patch[];
}

/** A rectangle of a source image (its features' frame, in pixels) and where in the distractor's frame it lies. */
export interface Patch {
  source: SourceImage;
  left: number;
  top: number;
  width: number;
  height: number;
  /** The frame position of the rectangle's top-left corner. */
  x: number;
  y: number;
}

export function distractor(sources: readonly SourceImage[], seed: number): Distractor {
  const rand = seededRandom(seed * 2654435761 + 17);
  const patches = 3 + Math.floor(rand() * 4);
  const picked: Array<{ source: SourceImage; index: number; x: number; y: number }> = [];
  const placed: Patch[] = [];
  for (let p = 0; p < patches; p++) {
    const source = sources[Math.floor(rand() * sources.length)];
    const { width, height, count, xy } = source.features;
    const w = width * (0.35 + rand() * 0.35);
    const h = height * (0.35 + rand() * 0.35);
    const left = rand() * (width - w);
    const top = rand() * (height - h);
    const dx = rand() * Math.max(1, FRAME_WIDTH - w) - left;
    const dy = rand() * Math.max(1, FRAME_HEIGHT - h) - top;
    placed.push({ source, left, top, width: w, height: h, x: left + dx, y: top + dy });
    for (let i = 0; i < count; i++) {
      const x = xy[2 * i];
      const y = xy[2 * i + 1];
      if (x < left || x >= left + w || y < top || y >= top + h) continue;
      const fx = x + dx;
      const fy = y + dy;
      if (fx < 0 || fy < 0 || fx >= FRAME_WIDTH || fy >= FRAME_HEIGHT) continue;
      picked.push({ source, index: i, x: fx, y: fy });
    }
  }
  // Later patches cover earlier ones where they overlap, as in a collage; keep the spread-out share that fits.
  const kept = picked.length > MAX_KEYPOINTS ? everyNth(picked, MAX_KEYPOINTS) : picked;
  const n = kept.length;
  const xy = new Float32Array(2 * n);
  const meta = new Float32Array(4 * n);
  const descriptors = new Uint8Array(n * DESCRIPTOR_BYTES);
  const words = new Uint32Array(n);
  kept.forEach(({ source, index, x, y }, k) => {
    xy[2 * k] = x;
    xy[2 * k + 1] = y;
    meta.set(source.features.meta.subarray(4 * index, 4 * index + 4), 4 * k);
    descriptors.set(source.features.descriptors.subarray(index * DESCRIPTOR_BYTES, (index + 1) * DESCRIPTOR_BYTES), k * DESCRIPTOR_BYTES);
    words[k] = source.words[index];
  });
  return { features: { width: FRAME_WIDTH, height: FRAME_HEIGHT, count: n, xy, meta, descriptors }, words, patches: placed };
}

/** Cells per side of the grid over which `distractorColourShares` finds which patch shows where. */
const COLOUR_GRID = 32;

/**
 * The colour shares of a distractor's copy (`colourShares`): at each cell of a grid, the shares of the image the last
 * patch there shows, the first image's (the background) where none does. A union of the images' sets would be a set of
 * a dozen bins or more, a superset of what a collage shows, which a query's colours are more often all in. Apart from
 * `distractor`, which a search's verification calls for every generated candidate, as it costs about 0.1 ms.
 */
export function distractorColourShares({ patches }: Distractor): Float64Array {
  const shares = new Float64Array(64);
  const cell = 1 / (COLOUR_GRID * COLOUR_GRID);
  for (let gy = 0; gy < COLOUR_GRID; gy++) {
    for (let gx = 0; gx < COLOUR_GRID; gx++) {
      const x = ((gx + 0.5) * FRAME_WIDTH) / COLOUR_GRID;
      const y = ((gy + 0.5) * FRAME_HEIGHT) / COLOUR_GRID;
      let shown = patches[0];
      for (const p of patches) if (x >= p.x && x < p.x + p.width && y >= p.y && y < p.y + p.height) shown = p;
      const from = shown.source.colourShares;
      for (let bin = 0; bin < 64; bin++) shares[bin] += from[bin] * cell;
    }
  }
  return shares;
}

/** Blur of the background: smooth enough to hold no corner, so every keypoint the distractor has lies in a patch. */
const BACKGROUND_BLUR_SIGMA = 24;

/**
 * The distractor's stored normalised copy: its patches cut from their images' normalised copies (`read` gives a
 * blob) and laid, in order, on its first image stretched and blurred. Patch corners are rounded to whole pixels, so a
 * keypoint lies within half a pixel of its place in the copy. Keypoints of a patch covered by a later one keep their
 * place in the features (as the features always did) but not in the pixels: the copy is what a collage shows.
 */
export async function distractorJpeg(sources: readonly SourceImage[], seed: number, read: (key: string) => Promise<Buffer>): Promise<Buffer> {
  const { patches } = distractor(sources, seed);
  const images = new Map<SourceImage, Buffer>();
  for (const { source } of patches) if (!images.has(source)) images.set(source, await read(source.normBlobKey));
  const first = await sharp(images.get(patches[0].source)!).resize(FRAME_WIDTH, FRAME_HEIGHT, { fit: 'fill' }).blur(BACKGROUND_BLUR_SIGMA).toColourspace('srgb').removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const cuts = await Promise.all(patches.map((patch) => cut(images.get(patch.source)!, patch)));
  return sharp(first.data, { raw: { width: FRAME_WIDTH, height: FRAME_HEIGHT, channels: 3 } })
    .composite(cuts)
    // Encoded as ingest encodes the stored copies it stands for.
    .jpeg({ quality: NORMALIZED_JPEG_QUALITY })
    .toBuffer();
}

async function cut(image: Buffer, patch: Patch): Promise<OverlayOptions> {
  const { width: imageWidth, height: imageHeight } = patch.source.features;
  const left = Math.round(patch.left);
  const top = Math.round(patch.top);
  const x = Math.round(patch.x);
  const y = Math.round(patch.y);
  const width = Math.min(Math.round(patch.width), imageWidth - left, FRAME_WIDTH - x);
  const height = Math.min(Math.round(patch.height), imageHeight - top, FRAME_HEIGHT - y);
  const { data, info } = await sharp(image).extract({ left, top, width, height }).toColourspace('srgb').removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { input: data, raw: { width: info.width, height: info.height, channels: info.channels as 3 }, left: x, top: y };
}

function everyNth<T>(items: T[], count: number): T[] {
  const step = items.length / count;
  return Array.from({ length: count }, (_, i) => items[Math.floor(i * step)]);
}
