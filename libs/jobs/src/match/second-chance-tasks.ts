import { confirmPlacedCrop, confirmWeakFit, confirmWholeImage, defineTask, featuresInSharedMemory, pixelsInSharedMemory, uprightEvidence, type DenseCheck, type Features, type GrayImage, type MatchResult, type RgbImage } from '@loupe/fingerprint';
import { findContentBox, findContentInsideFlatBands } from '@loupe/imaging';

/**
 * The pixel second chances of a search as compute tasks. A query that no feature fit finds (and every query whose image
 * is not in the collection) goes through all of them, and they ran one candidate after another on the calling thread:
 * in the matching benchmark's slowest tenth of searches, placements took 145 ms on average, dense checks 98 ms and the
 * upright copy 95 ms (docs/benchmarks.md, session 21). Each candidate's check is a pure function of the two images, so
 * the candidates of one chance are checked at once on the compute threads, and the answer is the calling thread's.
 */

/** The parts of a query a pixel check reads (no label or hashes: only what crosses to a thread). */
interface QueryPixels {
  rgb: RgbImage;
  gray?: GrayImage;
  features: Features;
}

/** Only the pixels of an image: a stored image's other fields (its original's info) need not cross to a thread. */
export function pixelsOnly({ data, width, height }: RgbImage): RgbImage {
  return { data, width, height };
}

/** `confirmWeakFit`: a weak feature fit confirmed on the pixels it aligns. */
export const denseFitTask = defineTask(
  __filename,
  'denseFitTask',
  ({ query, target, fit, targetScale, check }: { query: RgbImage; target: RgbImage; fit: MatchResult; targetScale: number; check: DenseCheck }) =>
    confirmWeakFit(query, target, fit, targetScale, check),
);

/** `confirmWholeImage`: a hash neighbour confirmed as a copy of the whole frame. */
export const wholeImageTask = defineTask(
  __filename,
  'wholeImageTask',
  ({ query, target, flipped, check }: { query: QueryPixels; target: { rgb: RgbImage; features: Features }; flipped: boolean; check: DenseCheck }) =>
    confirmWholeImage(query, target, flipped, check),
);

/** `confirmPlacedCrop`: the query placed in a collection image by its pixels, and again without its flat bands. */
export const placedCropTask = defineTask(
  __filename,
  'placedCropTask',
  ({ query, target, check }: { query: QueryPixels; target: { rgb: RgbImage; features: Features }; check: DenseCheck }) => confirmPlacedCrop(query, target, check, findContentInsideFlatBands),
);

/**
 * `uprightEvidence` of a query, cut to its content as a loaded query is (`findContentBox`): the rotation read off its
 * edges, the upright copy and its features (an ORB extraction). The copy's arrays are made in shared memory here, as a
 * loaded query's are (`QueryLoader.pixels`): they cross back to the search, and on to its checks, without a copy.
 */
export const uprightTask = defineTask(__filename, 'uprightTask', async ({ rgb, gray, includeMirror }: { rgb: RgbImage; gray: GrayImage; includeMirror: boolean }) => {
  const upright = await uprightEvidence(rgb, gray, includeMirror, findContentBox);
  return upright && { ...upright, rgb: pixelsInSharedMemory(upright.rgb), gray: pixelsInSharedMemory(upright.gray), features: featuresInSharedMemory(upright.features) };
});
