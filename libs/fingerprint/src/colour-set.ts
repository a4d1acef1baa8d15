import { high32, low32, tverskyOfHalves } from './bits';
import type { RgbImage } from './types';

/** Chroma (max − min channel, 0-255) under which a pixel counts as grey. */
const GREY_MAX_CHROMA = 24;
/** Grey bins, by lightness. */
const GREY_BINS = 8;
/** Hue sectors of the coloured bins, each split into COLOUR_LIGHTNESS_BINS by lightness: 8 + 14 × 4 = 64 bins. */
const HUE_SECTORS = 14;
const COLOUR_LIGHTNESS_BINS = 4;
/** Share of the sampled pixels a bin needs to be in the set: JPEG fringes and antialiasing stay out. */
const MIN_BIN_SHARE = 0.01;
/** Samples along the image's smaller side (a grid): a bin of 1 % is still a few dozen samples. */
const SAMPLES_PER_SIDE = 64;

/** The bin (0-63) of a colour: greys by lightness, other colours by hue sector and lightness. */
function colourBin(r: number, g: number, b: number): number {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const lightness = (max + min) / 2;
  const chroma = max - min;
  if (chroma < GREY_MAX_CHROMA) return Math.min(GREY_BINS - 1, Math.floor((lightness * GREY_BINS) / 256));
  const sector = max === r ? ((g - b) / chroma + 6) % 6 : max === g ? (b - r) / chroma + 2 : (r - g) / chroma + 4;
  const hue = Math.min(HUE_SECTORS - 1, Math.floor((sector / 6) * HUE_SECTORS));
  return colouredBin(hue, Math.min(COLOUR_LIGHTNESS_BINS - 1, Math.floor((lightness * COLOUR_LIGHTNESS_BINS) / 256)));
}

/** The bin of a coloured (not grey) hue sector and lightness bin; the grey bins come first. */
function colouredBin(hue: number, lightness: number): number {
  return GREY_BINS + hue * COLOUR_LIGHTNESS_BINS + lightness;
}

/**
 * The colours an image is made of, as a set of 64 bins (greys by lightness, other colours by hue and lightness) that
 * each cover at least MIN_BIN_SHARE of it, one bit per bin. A crop keeps most of its image's colours and adds few, so
 * its set is near its image's even when nothing else is: a crop of a soft gradient has no corners to vote with and
 * a whole-image hash unlike its image's. In the matching benchmark's smooth family (gradients, soft wallpapers, bokeh,
 * auroras), the 25 % and 50 % crops and their rotated JPEG copies were most alike their own image (by Jaccard's
 * likeness, before `colourLikeness`) in 83 of 96 cases, and among the 3 most alike in 92, in a collection of those 72
 * family images and 400 photos.
 */
export function colourSet(img: RgbImage): bigint {
  const { counts, samples } = binCounts(img);
  let set = 0n;
  for (let bin = 0; bin < 64; bin++) if (samples > 0 && counts[bin] >= MIN_BIN_SHARE * samples) set |= 1n << BigInt(bin);
  return set;
}

/** The share (0-1) of an image's sampled pixels in each of the 64 bins of `colourSet`; all 0 for an empty image. */
export function colourShares(img: RgbImage): Float64Array {
  const { counts, samples } = binCounts(img);
  return Float64Array.from(counts, (count) => (samples > 0 ? count / samples : 0));
}

/**
 * The colour set of a mix of images' bin shares (`colourShares`, weighed by the part of a frame each covers): the bins
 * of at least MIN_BIN_SHARE, as `colourSet` keeps them for one image's pixels.
 */
export function colourSetOfShares(shares: Float64Array): bigint {
  let set = 0n;
  for (let bin = 0; bin < 64; bin++) if (shares[bin] >= MIN_BIN_SHARE) set |= 1n << BigInt(bin);
  return set;
}

/** Samples per bin over a grid of SAMPLES_PER_SIDE along the image's smaller side. */
function binCounts(img: RgbImage): { counts: Uint32Array; samples: number } {
  const { width, height, data } = img;
  const step = Math.max(1, Math.floor(Math.min(width, height) / SAMPLES_PER_SIDE));
  const counts = new Uint32Array(64);
  let samples = 0;
  for (let y = step >> 1; y < height; y += step) {
    for (let x = step >> 1; x < width; x += step) {
      const i = (y * width + x) * 3;
      counts[colourBin(data[i], data[i + 1], data[i + 2])]++;
      samples++;
    }
  }
  return { counts, samples };
}

/**
 * How much the colours an image has and a query lacks count against the image in `colourLikeness`, against 1 for each
 * colour of the query that the image lacks. A crop lacks many of its image's colours and adds few (a JPEG fringe, a
 * rotated canvas's fill), so an image's own colours are the weaker evidence against it. With 18 images per family in
 * the matching benchmark (756 family queries), ranking the colour candidates by 0.5 instead of Jaccard's 1 found 13
 * family queries more and lost 4, with no new false answer.
 */
export const IMAGE_ONLY_COLOUR_WEIGHT = 0.5;

/**
 * How alike (0-1) an image's colour set is a query's (`colourSet`s): the bins both have over those, the query's own and
 * IMAGE_ONLY_COLOUR_WEIGHT times the image's own (Tversky's index); 0 when both are empty.
 */
export function colourLikeness(query: bigint, image: bigint): number {
  return tverskyOfHalves(high32(image), low32(image), high32(query), low32(query), IMAGE_ONLY_COLOUR_WEIGHT);
}

/**
 * Stored colour shares: one byte per bin, the square root of the share in 255ths, so that small shares keep their
 * precision (a 1 % bin is stored within 0.04 %, a 50 % bin within 0.3 %).
 */
const SHARE_UNITS = 255;

/** The bytes a collection stores of an image's colour shares (`colourShares`): 64, one a bin. */
export function encodeColourShares(shares: Float64Array): Uint8Array {
  return Uint8Array.from(shares, (share) => Math.round(Math.sqrt(Math.min(1, Math.max(0, share))) * SHARE_UNITS));
}

export function decodeColourShares(stored: Uint8Array): Float64Array {
  if (stored.length !== 64) throw new Error(`Not stored colour shares (${stored.length} bytes)`);
  return Float64Array.from(stored, (units) => (units / SHARE_UNITS) ** 2);
}

/**
 * How much of a query's colour an image has (0-1): the shares of each bin both have, summed (histogram intersection of
 * `colourShares`). It ranks the images a colour set (`colourLikeness`) found alike by how much of each colour they
 * have, which a set of bins of at least 1 % cannot tell: a photo with a logo on it keeps nearly all of its image's
 * shares, where a collage whose bins hold the query's (and more) holds them in other amounts; a crop keeps its image's
 * colours in amounts nearer its own than another image of the same palette does. See `COLOUR_SHORTLIST`.
 */
export function colourOverlap(query: Float64Array, image: Float64Array): number {
  let overlap = 0;
  for (let bin = 0; bin < 64; bin++) overlap += Math.min(query[bin], image[bin]);
  return overlap;
}

/**
 * The bins a pixel of each bin can move to when its image is copied: JPEG, resampling and a few levels of tone move a
 * colour across a bin's edge, to the next hue sector, lightness or both; a pixel of little chroma can turn grey (a grey
 * bin of about its lightness), and a grey one take any hue of its lightness. The bin itself included.
 */
const NEAR_BINS: readonly number[][] = Array.from({ length: 64 }, (_, bin) => {
  const near = new Set([bin]);
  // Hue sectors go round the circle.
  const around = (hue: number, lightness: number) => colouredBin((hue + HUE_SECTORS) % HUE_SECTORS, lightness);
  const greysPerLightness = GREY_BINS / COLOUR_LIGHTNESS_BINS;
  if (bin < GREY_BINS) {
    for (let grey = Math.max(0, bin - 1); grey <= Math.min(GREY_BINS - 1, bin + 1); grey++) {
      near.add(grey);
      for (let hue = 0; hue < HUE_SECTORS; hue++) near.add(colouredBin(hue, Math.floor(grey / greysPerLightness)));
    }
  } else {
    const hue = Math.floor((bin - GREY_BINS) / COLOUR_LIGHTNESS_BINS);
    const lightness = (bin - GREY_BINS) % COLOUR_LIGHTNESS_BINS;
    for (let l = Math.max(0, lightness - 1); l <= Math.min(COLOUR_LIGHTNESS_BINS - 1, lightness + 1); l++) {
      for (const h of [hue - 1, hue, hue + 1]) near.add(around(h, l));
    }
    for (let grey = Math.max(0, greysPerLightness * lightness - 1); grey <= Math.min(GREY_BINS - 1, greysPerLightness * (lightness + 1)); grey++) near.add(grey);
  }
  return [...near];
});

/**
 * The share (0-1) of a query's colour (`colourShares`) that an image's colour shares could not hold if the query were a
 * copy of a part of it covering at least `leastArea` (0-1) of it: a bin of the query is held up to the image's shares of
 * its NEAR_BINS over `leastArea`, and the rest of it is not held. A copy's pixels are its image's, moved by a few
 * levels, so all but a few JPEG fringes of it are held; an image of other colours holds little of it, whatever its
 * shapes. Cheaper than any pixel comparison, and answered from stored shares without reading the image.
 */
export function colourNotHeld(query: Float64Array, image: Float64Array, leastArea: number): number {
  let notHeld = 0;
  for (let bin = 0; bin < 64; bin++) {
    if (query[bin] === 0) continue;
    let near = 0;
    for (const other of NEAR_BINS[bin]) near += image[other];
    notHeld += Math.max(0, query[bin] - near / leastArea);
  }
  return notHeld;
}
