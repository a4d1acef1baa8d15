import { DEFAULT_MIN_INLIERS, differenceHash, extractFeatures, Features, featuresInSharedMemory, pixelsInSharedMemory, runInThisThread, SpareRunner, TaskRunner } from '@loupe/fingerprint';
import { assessImage, cropImage, decodeToRgb, findContentBox, GrayImage, grayImageOf, ImageInputError, normalizeImage, RgbImage } from '@loupe/imaging';
import type { BlobStore, CollectionRef, ImageRepository } from '@loupe/storage';
import { InputRefusedError, QuerySource, unreadableUploadMessage } from '../contracts';
import { Stopwatch } from '../stopwatch';
import { uprightTask } from './second-chance-tasks';

export interface LoadedQuery {
  /** How the query is named in results and messages: the upload's file name, the URL, or the collection path. */
  label: string;
  rgb: RgbImage;
  /** `rgb` in grey, as the features were extracted from. */
  gray: GrayImage;
  features: Features;
  /**
   * The whole-image hash of the uploaded frame before its borders were cut, when the cut took something. The cut of a
   * small or blurred copy is not always its image's (a 0.2x thumbnail of a dark sky lost other rows than its image
   * did), and then the uncut frame's hash is the nearer one (10-12 bits against 17-27 in the scale benchmark).
   */
  uncutHash?: bigint;
}

/** A query's decoded, normalised and cut pixels, before its features are extracted. */
export type QueryPixels = Pick<LoadedQuery, 'label' | 'rgb' | 'gray' | 'uncutHash'>;

/** A rotated query turned back upright (`uprightQuery`), with the map of its pixels back to the query's. */
export type UprightQuery = LoadedQuery & {
  toRotated: number[];
  /** The rotation was read off the filled corners of a canvas the query was turned on (`fillEdgeRotation`). */
  onFilledCanvas: boolean;
};

/**
 * The query turned back upright when its edges show a rotation off the axes (`uprightCopy`) and cut to its content as a
 * loaded query is, with its features and the map of its pixels back to the query's (`toRotated`); null when it shows
 * none.
 */
export async function uprightQuery(query: QueryPixels, includeMirror: boolean, run: TaskRunner = runInThisThread): Promise<UprightQuery | null> {
  return uprightOf(query, run(uprightTask, { rgb: query.rgb, gray: query.gray, includeMirror }));
}

async function uprightOf(query: QueryPixels, turning: ReturnType<typeof uprightTask.run>): Promise<UprightQuery | null> {
  const upright = await turning;
  return upright && { label: query.label, rgb: upright.rgb, gray: upright.gray, features: upright.features, toRotated: upright.toRotated, onFilledCanvas: upright.onFilledCanvas };
}

/**
 * `uprightQuery` as a thunk for the second chances that take it, started at once on a thread that is free now
 * (`spare`): while the calling thread extracts the query's own features and votes, a compute thread is idle. A search
 * that gets as far as the upright copy (every query whose image is not in the collection) then does not wait for its
 * ORB extraction there, the longest wait of the slowest searches at 1,000,000 images. A query that is found earlier
 * wastes the work, which is why it starts only on a spare thread: when searches or adds keep every thread busy, the
 * copy is made when it is asked for, as before.
 */
export function uprightQueryAhead(query: QueryPixels, includeMirror: boolean, spare: SpareRunner, run: TaskRunner): () => Promise<UprightQuery | null> {
  const started = spare(uprightTask, { rgb: query.rgb, gray: query.gray, includeMirror });
  if (!started) return () => uprightQuery(query, includeMirror, run);
  const upright = uprightOf(query, started);
  // Not awaited when the query is found first: its failure must not go unhandled then.
  upright.catch(() => undefined);
  return () => upright;
}

export interface LoadOptions {
  preferredSide: number;
  includeMirror: boolean;
}

export function missingMessage(filepath: string): string {
  return `${filepath}: This file does not exist in the image collection.`;
}

/**
 * Whether a query has enough distinctive points for the feature vote and verification (a fit needs DEFAULT_MIN_INLIERS
 * inliers). A plainer one, a soft gradient, can still be a whole copy of a collection image (`MatchService`'s
 * whole-image check); when it is not, it is refused with `tooPlainMessage`.
 */
export function hasDistinctivePoints(query: LoadedQuery): boolean {
  return query.features.count >= DEFAULT_MIN_INLIERS;
}

/**
 * Queries with fewer points than this, or whose visual words repeat at least this much (1 - distinct words / words), are
 * those whose features can fail for what the images are (too few corners, every corner with twins), and get the
 * placement chance (`confirmPlacedCrop`). In the matching benchmark, the 12 queries that only placement found had
 * 14-41 points or repetitions of 0.26-0.80, while three quarters of the photos outside the collection had neither
 * (repetition 0.05-0.25 over most of them, 212-1,000 points): they skip the placements' reads and template searches.
 */
const PLACEABLE_MAX_POINTS = 300;
const PLACEABLE_MIN_REPETITION = 0.25;
/**
 * Queries whose points are this weak corners at the median (ORB's Harris response) get the placement chance too: the
 * block edges of a recompressed smooth image, which give a rotated JPEG crop of a gradient or soft wallpaper a thousand
 * points that match nothing and hardly repeat, and the fine lines of wood grain turned and recompressed (2e-7 for a
 * quarter of the benchmark's wood-4 turned -20° at JPEG q50, found only by placing its upright copy; eight other wood
 * grains, cropped and turned alike, ranged from under 1e-7 to 8e-7). No photo outside the collection that the other
 * bounds leave to its features came near: the weakest of 110 in the matching benchmark was at 1.7e-6. Raised from 1e-7
 * to 3e-7 (docs/benchmarks.md, session 54), the benchmark's large sample (936 searches) found that wood grain and
 * answered every other search as before, and at 1,000,000 images a photo blurred by σ4 px was found by its placement,
 * with no false positive in 120. At 1e-7, of the benchmark families' rotated JPEG crops with 300 points or more, 40 of
 * 47 smooth ones were under the bound, 11 of 48 patterns and 9 of 46 logos; of 80 photos under seven edits, 17 of 532
 * queries.
 */
const PLACEABLE_MAX_MEDIAN_RESPONSE = 3e-7;

/** The median ORB response (corner strength) of a query's points. */
export function medianResponse(features: LoadedQuery['features']): number {
  const responses = Float32Array.from({ length: features.count }, (_, i) => features.meta[4 * i + 2]).sort();
  return responses[responses.length >> 1];
}

/** How much a query's visual words repeat: 1 - distinct words / words. */
export function wordRepetition(words: Uint32Array): number {
  return 1 - new Set(words).size / words.length;
}

/**
 * PLACEABLE_MIN_REPETITION for a query's upright copy (`uprightQuery`). Turned back, a rotated crop of rows of digits
 * repeats its words less than an upright crop does, and by how much depends on a pixel of its frame: two quarters of
 * the matching benchmark's digits turned -20° and re-encoded repeated 0.215 and 0.249 upright (0.19 and 0.22 as they
 * were). Both are placed and confirmed in their stored images, and the dense check confirms neither there; at 0.25
 * the search found one by the dense check of the query's best-voted, the other not at all.
 */
const UPRIGHT_PLACEABLE_MIN_REPETITION = 0.2;

/**
 * Whether a query with these visual words (`words`, of its features) is worth placing by its pixels (see above), by
 * UPRIGHT_PLACEABLE_MIN_REPETITION for an upright copy.
 */
export function worthPlacing(query: LoadedQuery, words: Uint32Array): boolean {
  if (query.features.count < PLACEABLE_MAX_POINTS) return true;
  const minRepetition = 'toRotated' in query ? UPRIGHT_PLACEABLE_MIN_REPETITION : PLACEABLE_MIN_REPETITION;
  return wordRepetition(words) >= minRepetition || medianResponse(query.features) < PLACEABLE_MAX_MEDIAN_RESPONSE;
}

export function tooPlainMessage(query: LoadedQuery): string {
  return `${query.label}: The image is too plain to search: only ${query.features.count} distinctive points were found, and it is not a copy of a whole image in the collection.`;
}

/**
 * Turns a query source into normalised pixels and features, refusing (as the caller's error) images that are corrupt,
 * animated, extremely small or of a single color.
 */
export class QueryLoader {
  constructor(
    private readonly images: ImageRepository,
    private readonly blobs: BlobStore,
  ) {}

  async load(ref: CollectionRef, source: QuerySource, options: LoadOptions, resizeWatch: Stopwatch): Promise<LoadedQuery> {
    return this.withFeatures(await this.pixels(ref, source, options, resizeWatch), options);
  }

  /**
   * The first half of `load`: the query's pixels, read, normalised, checked and cut to their content. They are in shared
   * memory, as its features are (`withFeatures`): a search hands them to every pixel check on the compute threads.
   */
  async pixels(ref: CollectionRef, source: QuerySource, options: LoadOptions, resizeWatch: Stopwatch): Promise<QueryPixels> {
    const { label, rgb, uncutHash } = 'filepath' in source ? await this.fromCollection(ref, source.filepath, resizeWatch) : await this.fromStaged(source, options, resizeWatch);
    return { label, rgb: pixelsInSharedMemory(rgb), gray: pixelsInSharedMemory(grayImageOf(rgb)), uncutHash };
  }

  /** The second half of `load`: the features of the query's pixels. */
  async withFeatures(pixels: QueryPixels, options: LoadOptions): Promise<LoadedQuery> {
    return { ...pixels, features: featuresInSharedMemory(await extractFeatures(pixels.gray, { includeMirror: options.includeMirror })) };
  }

  private async fromStaged(source: { staged_key: string; label: string }, options: LoadOptions, watch: Stopwatch) {
    const data = await this.blobs.get(source.staged_key);
    if (data === null) throw new InputRefusedError(unreadableUploadMessage(source.label));
    watch.start();
    try {
      // Normalising reads and validates the whole file (corrupt, truncated, animated): no separate inspection decode.
      const normalized = await normalizeImage(data, { preferredSide: options.preferredSide });
      const rgb = cropImage(normalized, findContentBox(normalized));
      const assessment = assessImage(rgb, normalized.original);
      if (assessment.reason) throw new InputRefusedError(`${source.label}: ${assessment.reason}`);
      const cut = rgb.width < normalized.width || rgb.height < normalized.height;
      return { label: source.label, rgb, uncutHash: cut ? differenceHash(grayImageOf(normalized)) : undefined };
    } catch (error) {
      if (error instanceof ImageInputError) throw new InputRefusedError(`${source.label}: ${error.message}`);
      throw error;
    } finally {
      watch.stop();
    }
  }

  private async fromCollection(ref: CollectionRef, filepath: string, watch: Stopwatch) {
    const row = (await this.images.findByPaths(ref, [filepath])).get(filepath);
    if (!row) throw new InputRefusedError(missingMessage(filepath));
    if (!row.searchable) throw new InputRefusedError(`${filepath}: ${row.unsearchable_reason ?? 'This image cannot be searched.'}`);
    const data = await this.blobs.get(row.norm_blob_key);
    if (data === null) throw new Error(`${filepath}: the stored image is missing from the blob store`);
    watch.start();
    const rgb = await decodeToRgb(data);
    watch.stop();
    return { label: filepath, rgb, uncutHash: undefined };
  }
}
