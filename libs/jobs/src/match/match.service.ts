import { colourSet, pixelsInSharedMemory, colourShares, decodeColourShares, mayHoldPlacement, placedColours, isSmoothThroughout, sameFrameShape, storedFrame, confirmDense, noSpareThread, SpareRunner, confirmPlacedCrop, confirmSharedDetail, confirmUpright, DenseCheck, UPRIGHT_CHECK, confirmWholeImage, deserializeFeatures, differenceHash, hashDistance, matchInRotatedFrame, mirrorGray, weakFitOptions, worthDenseCheck, enhancedScore, Features, GrayImage, MatchResult, renderOverlay, RgbImage, rgbToGray, runInThisThread, TaskRunner, verifyInThisThread, verifyMatch, VerifyBatch } from '@loupe/fingerprint';
import { decodeToRgb, findContentBox, findContentInsideFlatBands, NormalizedImage, normalizeImage } from '@loupe/imaging';
import type { BlobStore, CollectionRef, ImageRepository, MatchIndexRepository } from '@loupe/storage';
import { CompareResult, ComparePayload, InputRefusedError, MatchItem, QuerySource, SearchPayload, SearchResult } from '../contracts';
import { Stopwatch } from '../stopwatch';
import { StepTimer } from '../step-timer';
import { compareColors } from './color-compare';
import { COLOUR_CANDIDATES, ColourCandidate, CollectionSearchIndex, GLOBAL_CANDIDATES, GLOBAL_HASH_MAX_DISTANCE, HashProbe, mergeShortlists, PLAIN_COLOUR_CANDIDATES, PLAIN_COLOUR_CANDIDATES_BY_SETS, rankedByColourShares } from './collection-index';
import { storeOverlay } from './overlay-store';
import { hasDistinctivePoints, LoadedQuery, QueryLoader, tooPlainMessage, UprightQuery, uprightQueryAhead, worthPlacing } from './query-loader';
import { denseFitTask, pixelsOnly, placedCropTask, wholeImageTask } from './second-chance-tasks';
import { firstFound, type Found } from './first-found';
import { matchVocabulary } from './vocabulary';
import { nativeScaleWordsAhead } from './native-scale-vote';
import { NO_PRINT_CHECK, PrintVerdicts, type PrintCheck } from './print-check';
import type { SearchTrace } from './search-trace';
import { FIRST_ROUND, MAX_VERIFIED, RoundSteps, verifyInRounds, verifyStoredFeatures } from './verify-rounds';

/**
 * Best-voted candidates given the dense second chance when feature verification found nothing. Their weak fits cost
 * about a verification each on the pool; only a fit that overlaps enough costs a decode and a correlation (~25 ms).
 */
export const DENSE_CANDIDATES = 6;
/**
 * Best-voted candidates of the query's shape given the whole-image second chance besides its hash neighbours
 * (`wholeImageCandidates`). In the matching benchmark the best-voted six took the step from 4 to 56 ms on average for a
 * query whose image is not in the collection; the best-voted alone found the same copy in 14-17 ms.
 */
const WHOLE_VOTED_CANDIDATES = 1;
/**
 * Smaller side at which a collection image is decoded for a second chance's pixel comparison: half the stored 600 px,
 * so JPEG decodes at half scale (shrink-on-load), still above what the comparison frame (360 px on the query's longer
 * side) samples from a copy that overlaps at least half of it.
 */
const SECOND_CHANCE_DECODE_SIDE = 300;
/**
 * Best-voted candidates in which a query `worthPlacing` is placed by its pixels (`confirmPlacedCrop`) when every other
 * chance failed, besides the COLOUR_CANDIDATES most alike it in colour: a placement costs a decode and a template search
 * (~20 ms). In the benchmark families, the crops of smooth wallpapers and tile walls that features cannot fit were voted
 * among the first three, and a quarter of wood grain 4th (its image 10th by colour): with 4, one more family query of
 * 756 found, no false positive, and the same answers at 1,000,000 images in the same time (docs/benchmarks.md, session
 * 45).
 */
const PLACEMENT_CANDIDATES = 4;
/**
 * Best-voted candidates of the upright copy's own vote in which it is placed, besides those of the query's vote and its
 * colours. With the first three, queries outside the collection spent 4-6 ms more on average in the upright chances of
 * the matching benchmark (34 → 40 ms at 1,000 images, 32 → 36 at 10,000) for the one family query they found, whose
 * image the upright vote ranked first.
 */
const UPRIGHT_VOTED_PLACEMENTS = 1;

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}

function roundRect(r: MatchResult['query_match_rect']) {
  return { left: round1(r.left), right: round1(r.right), top: round1(r.top), bottom: round1(r.bottom) };
}

export function matchItem(filepath: string, m: MatchResult): MatchItem {
  return {
    filepath,
    score: round1(m.score),
    match_percent: round1(m.match_percent),
    query_overlap_percent: round1(m.query_overlap_percent),
    target_overlap_percent: round1(m.target_overlap_percent),
    query_match_rect: roundRect(m.query_match_rect),
    target_match_rect: roundRect(m.target_match_rect),
  };
}

/** The whole-image hashes a query is compared by: its own, and its mirror's with flip checks. */
function hashProbes(gray: GrayImage, checkHorizontalFlip: boolean): HashProbe[] {
  const probes: HashProbe[] = [{ hash: differenceHash(gray), flipped: false }];
  if (checkHorizontalFlip) probes.push({ hash: differenceHash(mirrorGray(gray)), flipped: true });
  return probes;
}

/** What a pixel check of `query` reads, and no more: it crosses to a compute thread. */
function queryPixels(query: LoadedQuery): { rgb: RgbImage; gray: GrayImage; features: Features } {
  return { rgb: query.rgb, gray: query.gray, features: query.features };
}

/** The collection path a search queries by, when it does (`filepath`), else undefined. */
function queriedPath(payload: SearchPayload): string | undefined {
  return 'filepath' in payload.query ? payload.query.filepath : undefined;
}

/**
 * A collection image near the query by whole-image hash, found by the query's probe, its mirror's (`flipped`), or its
 * uncut frame's (`uncut`: `LoadedQuery.uncutHash`).
 */
interface HashNeighbour {
  imagePk: number;
  flipped: boolean;
  uncut: boolean;
  distance: number;
}

/** The feature verification of a search, and the images it verified (the vote's candidates, then hash neighbours). */
interface FeatureVerification {
  steps: RoundSteps<number, Map<number, Buffer>, MatchResult>;
  verified: Set<number>;
}

/**
 * How the images alike a query in colour are chosen for placement (`inColourOrder`): by their colour sets and
 * shares, or by their sets alone. A copy turned upright is placed in images chosen by their sets alone: ranked by
 * shares too, images of the query's palette came first more often, and among them an upright copy's placement (judged
 * on a turned copy and its fill) was confirmed in other images: a flat landscape's crop in another of its palette, and a
 * rotated night sky in another dark astronomy image (docs/benchmarks.md, session 35).
 */
type ColourOrder = 'sets and shares' | 'sets';

/** Who gets the second chances that take vote candidates: the best-voted few. */
interface SecondChanceCandidates {
  dense: number[];
  /**
   * Where `by` (the query as it is, or its upright copy) is placed by its pixels (`MatchService.placing`), asked only when
   * the placement chance is reached: for the colour candidates that is a scan of the collection's colour sets, or a
   * round of jobs to its shard owners.
   */
  placing: (by: LoadedQuery, colours: ColourOrder) => Promise<number[]>;
  /**
   * Whether the query as it is is placed (`worthPlacing`). Its upright copy is placed when either is: a rotated crop of
   * wood grain or digits has the points and hardly the repetition of a photo as it is, its canvas's corners included.
   */
  placesAsIs: boolean;
  /** The search's feature verification, for the hash neighbours; null for a query with too few points to verify. */
  byFeatures: FeatureVerification | null;
  /** The query turned upright (`uprightQueryAhead`), asked only when the chances as it is have failed. */
  upright: () => Promise<UprightQuery | null>;
}

/** The stored pixels of collection images a search read or is reading, by image id (`storedPixelsOf`). */
type PixelReads = Map<number, Promise<NormalizedImage | null>>;

/**
 * One search: its collection and request, and what its steps have read and decided so far, kept once for every later
 * step that needs it again (feature verification, the upright copy's vote, the second chances).
 */
interface SearchState {
  ref: CollectionRef;
  payload: SearchPayload;
  /** Collection paths of the images the search has met (voted, hash neighbours, alike in colour), by image id. */
  paths: Map<number, string>;
  /** Stored features read, by image id. */
  fetched: Map<number, Buffer>;
  /** Stored pixels read or being read: by the shared-detail check of concentrated fits and by the pixel chances. */
  read: PixelReads;
  /**
   * Stored colour shares read or being read, by image id (undefined: indexed without): by the colour candidates' ranking
   * and by the colour test before each placement, which look at many of the same images.
   */
  shares: Map<number, Promise<Uint8Array | undefined>>;
  /** The print check's verdicts (`PrintVerdicts`). */
  verdicts: PrintVerdicts;
}

/**
 * What a search reads of each image once, whichever of its steps asks first: the values of `imagePks`, those not in
 * `reads` (read or being read) asked of one `read` call, whose answer per image is kept in `reads`.
 */
function readOnce<T>(reads: Map<number, Promise<T>>, imagePks: readonly number[], read: (unread: number[]) => (imagePk: number) => Promise<T>): Promise<T[]> {
  const unread = [...new Set(imagePks)].filter((imagePk) => !reads.has(imagePk));
  if (unread.length > 0) {
    const valueOf = read(unread);
    for (const imagePk of unread) reads.set(imagePk, valueOf(imagePk));
  }
  return Promise.all(imagePks.map((imagePk) => reads.get(imagePk)!));
}

/** What every second chance of one search reads: the search, its query and its candidates. */
interface ChanceSearch extends SearchState {
  query: LoadedQuery;
  chances: SecondChanceCandidates;
  /** The query turned upright (`SecondChanceCandidates.upright`), asked once. */
  upright: Promise<UprightQuery | null>;
  /** Aborts once the second chances have their answer: the pixel checks still queued for them are withdrawn. */
  answered: AbortSignal;
}

/**
 * Feature verification of the hash neighbours (of every probe) that the search has not verified yet; they count as
 * verified afterwards. Nothing for a query with too few points to verify.
 */
async function verifyNeighbours(byFeatures: FeatureVerification | null, neighbours: HashNeighbour[][]) {
  if (!byFeatures) return [];
  const unverified = [...new Set(neighbours.flat().map((n) => n.imagePk))].filter((imagePk) => !byFeatures.verified.has(imagePk));
  for (const imagePk of unverified) byFeatures.verified.add(imagePk);
  return verifyInRounds(unverified, unverified.length, byFeatures.steps);
}

/**
 * The candidates given the whole-image second chance: per probe the hash neighbours within GLOBAL_HASH_MAX_DISTANCE
 * (the nearest GLOBAL_CANDIDATES), the distance its pixel checks were measured at, each with the flip of the first probe
 * that found it; then the best-voted of `voted` (WHOLE_VOTED_CANDIDATES), unflipped. A whole copy of a repeating
 * pattern can keep its words but not its hash: a tile lattice at half size and JPEG q30 moved 26 bits from its image's,
 * where its aligned frames still correlate (`confirmWholeImage`, which no other image of its family passed in the
 * matching benchmark's families: 0 of 792 pairs). Only those of the query's shape are read (`confirmWholeImages`).
 */
function wholeImageCandidates(neighbours: HashNeighbour[][], voted: readonly number[]): Map<number, boolean> {
  const candidates = new Map<number, boolean>();
  for (const probe of neighbours) {
    // The whole-image check aligns the cut query's frame with the image's: the uncut frame's neighbours are not for it.
    for (const { imagePk, flipped } of probe.filter((n) => !n.uncut && n.distance <= GLOBAL_HASH_MAX_DISTANCE).slice(0, GLOBAL_CANDIDATES)) {
      if (!candidates.has(imagePk)) candidates.set(imagePk, flipped);
    }
  }
  for (const imagePk of voted.slice(0, WHOLE_VOTED_CANDIDATES)) if (!candidates.has(imagePk)) candidates.set(imagePk, false);
  return candidates;
}

/** Search and compare on the matching engine: query → features → words → candidates → verified matches. */
export class MatchService {
  private readonly loader: QueryLoader;

  constructor(
    private readonly images: ImageRepository,
    private readonly index: MatchIndexRepository,
    private readonly blobs: BlobStore,
    /** The collections' indexes: held here, or by the owners of a partitioned collection's shard sets. */
    private readonly collections: CollectionSearchIndex,
    /** Verifies a shortlist in parallel (worker threads); without it, one pair after another in this thread. */
    private readonly verifyAll: VerifyBatch = verifyInThisThread,
    /** Runs the pixel second chances (`second-chance-tasks`): on the compute threads, or in this one. */
    private readonly run: TaskRunner = runInThisThread,
    /** Starts work ahead on a compute thread that is free now (the upright copy); none without threads. */
    private readonly runSpare: SpareRunner = noSpareThread,
    /**
     * Told the candidates each search chose (a benchmark's record of why it missed). Without one, nothing is built for
     * it: the lists it is told are made only when there is a trace (`?.`).
     */
    private readonly trace?: SearchTrace,
    /**
     * Reads the print of two images where a fit aligns them, for concentrated fits (`confirmSharedDetails`) and what the
     * pixel chances find (`withSamePrint`); none without.
     */
    private readonly printCheck: PrintCheck = NO_PRINT_CHECK,
  ) {
    this.loader = new QueryLoader(images, blobs);
  }

  async search(payload: SearchPayload): Promise<SearchResult> {
    const ref: CollectionRef = { accountId: payload.account_id, service: payload.service };
    const options = payload.options;
    const resizeWatch = new Stopwatch();
    const steps = new StepTimer();
    try {
      const loading = { preferredSide: payload.preferred_side, includeMirror: options.check_horizontal_flip };
      const pixels = await this.loader.pixels(ref, payload.query, loading, resizeWatch);
      const upright = uprightQueryAhead(pixels, options.check_horizontal_flip, this.runSpare, this.run);
      const query = await this.loader.withFeatures(pixels, loading);
      steps.lap('query');
      const searchWatch = new Stopwatch().start();
      const state: SearchState = { ref, payload, paths: new Map(), fetched: new Map(), read: new Map(), shares: new Map(), verdicts: new PrintVerdicts() };
      const found = hasDistinctivePoints(query) ? await this.matchFeatures(state, query, upright, steps) : await this.matchWholeCopy(state, query, upright, steps);
      const matches = found.map(({ candidate: imagePk, result: match }) => ({ filepath: state.paths.get(imagePk)!, imagePk, match }));
      // A search by a collection filepath returns that image itself first (docs/protocol.md §7): an identical copy
      // under another path scores the same, and the order of paths must not put the copy ahead of it.
      const queried = queriedPath(payload);
      matches.sort((a, b) => Number(b.filepath === queried) - Number(a.filepath === queried) || b.match.score - a.match.score || a.filepath.localeCompare(b.filepath));
      const kept = matches.filter((m) => m.match.score >= options.min_score);
      const page = options.limit > 0 ? kept.slice(options.offset, options.offset + options.limit) : kept.slice(options.offset);
      const items = page.map((m) => matchItem(m.filepath, m.match));
      if (options.generate_overlay) {
        const targets = await this.images.findByPaths(ref, page.map((m) => m.filepath));
        for (let i = 0; i < page.length; i++) {
          const target = await decodeToRgb((await this.blobs.get(targets.get(page[i].filepath)!.norm_blob_key))!);
          items[i].overlay = await storeOverlay(this.blobs, payload.account, payload.service, await renderOverlay(query.rgb, target, page[i].match));
        }
        steps.lap('overlays');
      }
      return {
        query_filepath: query.label,
        items,
        total_results: matches.length,
        total_filtered_results: kept.length,
        time_resize: resizeWatch.elapsed,
        time_search: searchWatch.stop(),
        steps: steps.times,
      };
    } finally {
      await this.discardStaged(payload.query);
    }
  }

  /**
   * The vote's candidates verified in rounds (`verifyInRounds`), the few whose fit concentrates on shared detail
   * checked on their pixels; when none verifies, the second chances.
   */
  private async matchFeatures(state: SearchState, query: LoadedQuery, upright: SecondChanceCandidates['upright'], steps: StepTimer) {
    const { ref, payload, paths } = state;
    const options = payload.options;
    const words = matchVocabulary().vocabulary.quantize(query.features);
    const request = { filters: options, queriedPath: queriedPath(payload) };
    const shortlist = await this.collections.candidates(ref, { wordLists: this.wordLists(words, query, payload), ...request });
    let ranked = shortlist.map((c) => c.imagePk);
    for (const c of shortlist) paths.set(c.imagePk, c.filepath);
    this.trace?.voted('query', shortlist.map((c) => c.filepath));
    steps.lap('vote');
    const wanted = options.limit > 0 ? options.offset + options.limit : MAX_VERIFIED;
    const byFeatures = this.featureVerification(state, query);
    const verified = new Set<number>();
    // A small query's words at its own scale vote only when its first round found nothing (native-scale-vote.ts).
    const nativeScale = nativeScaleWordsAhead(query.gray, this.run);
    const widen = async () => {
      const nativeWords = await nativeScale();
      if (!nativeWords) return ranked;
      const merged = mergeShortlists([shortlist, await this.collections.candidates(ref, { wordLists: [nativeWords], ...request })], request.queriedPath);
      for (const c of merged) paths.set(c.imagePk, c.filepath);
      this.trace?.voted('query', merged.map((c) => c.filepath));
      ranked = merged.map((c) => c.imagePk);
      return ranked;
    };
    const found = await verifyInRounds(ranked, wanted, recordingVerified(byFeatures, verified), widen);
    steps.lap('verification');
    if (found.length > 0) return found;
    const placing = this.placing(state, ranked.slice(0, PLACEMENT_CANDIDATES), COLOUR_CANDIDATES);
    // Nothing matched, so every round ran: `verified` holds every candidate verified by features.
    return this.secondChances(state, query, { dense: ranked.slice(0, DENSE_CANDIDATES), placing, placesAsIs: worthPlacing(query, words), byFeatures: { steps: byFeatures, verified }, upright }, steps);
  }

  /**
   * Feature verification of candidates by id for `verifyInRounds`: their stored features read (into `fetched`), verified
   * on the verification threads, and the fits that concentrate on shared detail checked on their pixels.
   */
  private featureVerification(state: SearchState, query: LoadedQuery): RoundSteps<number, Map<number, Buffer>, MatchResult> {
    return verifyStoredFeatures(
      (ids) => this.index.features(ids),
      async (targets, ids) => this.confirmSharedDetails(state, query, ids, await this.verifyAll(query.features, targets, { checkHorizontalFlip: state.payload.options.check_horizontal_flip })),
      state.fetched,
    );
  }

  /**
   * A query with too few distinctive points for the vote (a soft gradient) can still be a copy of a collection image:
   * the second chances without vote candidates, that is the whole-image check of its hash neighbours and its placement
   * in the images most alike it in colour, as it is and turned upright. Refused as too plain when it is none.
   */
  private async matchWholeCopy(state: SearchState, query: LoadedQuery, upright: SecondChanceCandidates['upright'], steps: StepTimer) {
    const placing = this.placing(state, [], PLAIN_COLOUR_CANDIDATES);
    const found = await this.secondChances(state, query, { dense: [], placing, placesAsIs: true, byFeatures: null, upright }, steps);
    if (found.length === 0) throw new InputRefusedError(tooPlainMessage(query));
    return found;
  }

  async compare(payload: ComparePayload): Promise<CompareResult> {
    const ref: CollectionRef = { accountId: payload.account_id, service: payload.service };
    const options = payload.options;
    const resizeWatch = new Stopwatch();
    try {
      const first = await this.loader.load(ref, payload.first, { preferredSide: payload.preferred_side, includeMirror: options.check_horizontal_flip }, resizeWatch);
      const second = await this.loader.load(ref, payload.second, { preferredSide: payload.preferred_side, includeMirror: false }, resizeWatch);
      const compareWatch = new Stopwatch().start();
      const flip = { checkHorizontalFlip: options.check_horizontal_flip };
      const plain = [first, second].find((image) => !hasDistinctivePoints(image));
      // The second chances in a search's order: dense, whole image, placed crop, then those on the first image upright;
      // as in a search, what they find must not read otherwise in print.
      const match =
        (plain ? null : await this.compareFeatures(first, second, flip)) ??
        (await this.samePrint(first, second, await this.compareWholeImages(first, second, flip))) ??
        (await this.samePrint(first, second, await confirmPlacedCrop(first, second, {}, findContentInsideFlatBands))) ??
        (await this.samePrint(first, second, await confirmUpright(first, second, { ...flip, contentBox: findContentBox, insideFlatBands: findContentInsideFlatBands })));
      if (!match && plain) throw new InputRefusedError(tooPlainMessage(plain));
      const items: MatchItem[] = [];
      if (match && match.score >= options.min_score) items.push(await this.describeCompare(first, second, match, payload));
      return { query_filepath: first.label, items, time_resize: resizeWatch.elapsed, time_compare: compareWatch.stop() };
    } finally {
      await Promise.all([this.discardStaged(payload.first), this.discardStaged(payload.second)]);
    }
  }

  /** Feature verification of a pair (a concentrated fit checked on its pixels and print), then the dense second chance. */
  private async compareFeatures(first: LoadedQuery, second: LoadedQuery, flip: { checkHorizontalFlip: boolean }): Promise<MatchResult | null> {
    const verified = await verifyMatch(first.features, second.features, flip);
    const confirmed = verified && (await confirmSharedDetail(first.rgb, second.rgb, verified));
    const printDiffers = confirmed && verified.concentrated && (await this.printCheck.differs(first.gray, second.gray, verified));
    return (printDiffers ? null : confirmed) ?? (await this.samePrint(first, second, await confirmDense(first, second, flip)));
  }

  /** A compared pair's second-chance match, or null when the second image's print reads otherwise in the first. */
  private async samePrint(first: LoadedQuery, second: LoadedQuery, match: MatchResult | null): Promise<MatchResult | null> {
    return match && !(await this.printCheck.differs(first.gray, second.gray, match)) ? match : null;
  }

  /**
   * The whole-image check (`confirmWholeImage`) of a pair whose difference hashes are as near as a search's hash
   * neighbours (GLOBAL_HASH_MAX_DISTANCE), the first image mirrored with flip checks, as a search mirrors its query:
   * the same pairs a search would find as whole copies.
   */
  private async compareWholeImages(first: LoadedQuery, second: LoadedQuery, flip: { checkHorizontalFlip: boolean }): Promise<MatchResult | null> {
    const secondHash = differenceHash(second.gray);
    for (const { hash, flipped } of hashProbes(first.gray, flip.checkHorizontalFlip)) {
      if (hashDistance(hash, secondHash) > GLOBAL_HASH_MAX_DISTANCE) continue;
      const match = await confirmWholeImage(first, second, flipped);
      if (match) return match;
    }
    return null;
  }

  private async describeCompare(first: LoadedQuery, second: LoadedQuery, match: MatchResult, payload: ComparePayload): Promise<MatchItem> {
    const item = matchItem(second.label, match);
    if (payload.options.compute_enhanced_score) item.score_enhanced = round1(await enhancedScore(first.rgb, second.rgb, match));
    if (payload.options.compare_color) {
      Object.assign(item, compareColors(first.rgb, second.rgb, match.query_match_rect, match.target_match_rect));
    }
    if (payload.options.generate_overlay) {
      item.overlay = await storeOverlay(this.blobs, payload.account, payload.service, await renderOverlay(first.rgb, second.rgb, match));
    }
    return item;
  }

  /**
   * A verified fit whose inliers sit in a small part of the overlap (`concentrated`) is kept only when the aligned
   * pixels agree too (`confirmSharedDetail`: colours, and the collection image's own edges): two logos of one design
   * fit on their shared mark and tagline alone. Then, where the query shows the collection image's print, the two must
   * not read differently (`printCheck`): two badges of one template and colour differ only by their name.
   * Only those candidates' stored images are read (about a fifth of true matches), and kept in the search's `read` for
   * the pixel chances, which look at the same best-voted images when the fit is refused.
   */
  private async confirmSharedDetails(state: SearchState, query: LoadedQuery, ids: number[], results: Array<MatchResult | null>) {
    const concentrated = ids.filter((_, i) => results[i]?.concentrated);
    if (concentrated.length === 0) return results;
    const stored = await this.storedPixelsOf(state, concentrated);
    const pixelsOf = new Map(concentrated.map((imagePk, i) => [imagePk, stored[i]]));
    return Promise.all(
      results.map(async (result, i) => {
        if (!result?.concentrated) return result;
        // A row without a stored image (imported word lists only) cannot be checked: its fit stands as verified.
        const pixels = pixelsOf.get(ids[i]);
        if (!pixels) return result;
        const confirmed = await confirmSharedDetail(query.rgb, pixels, result, pixels.scale);
        return confirmed && (await this.storedPrintDiffers(state, ids[i], query, pixels, result)) ? null : confirmed;
      }),
    );
  }

  /**
   * When no candidate passed feature verification: feature verification of the query's hash neighbours
   * (`verifyNeighbours`), the dense second chance for the best-voted few (`weakFits`, `confirmFits`), then the
   * whole-image one for the nearest hash neighbours and the best-voted image (`confirmWholeImages`), then the placement
   * of the query by its pixels in `placing` (`confirmPlacements`: the best-voted few, for a query `worthPlacing`); then,
   * when the query's edges show a rotation off the axes (`uprightQuery`), the upright copy's own vote
   * (`verifyUprightVote`) and all four again on the upright copy (its hash neighbours' feature verification with the
   * query's own features, the rest judged as UPRIGHT_CHECK), what they find told in the query's own frame. The upright
   * copy's chances run alongside the three pixel chances of the query as it is (`uprightChances`), and are answered
   * after them; a query turned on a filled canvas has the upright copy's alone.
   *
   * The hash neighbours are verified by features because in a large collection the vote can rank the image of a copy
   * beyond the shortlist while its whole-image hash stays near: a copy that keeps the whole frame but few of its fine
   * corners, and above all a rotated photo turned upright (a +30° rotation ranked 87th by votes in 100,000 images).
   * Copies of patterns, smooth artwork and logos rotated by 20° fail the pixel chances as they are (their corners turn
   * less cleanly than a photo's, and a rotated canvas is not the collection image's frame); upright they are crops and
   * whole copies again. The upright copy keeps the candidates of the rotated query's vote (its words are nearly the
   * upright one's).
   */
  private async secondChances(state: SearchState, query: LoadedQuery, chances: SecondChanceCandidates, steps: StepTimer) {
    // The uncut frame's neighbours are only for feature verification, which a query too plain to verify does not get.
    const neighbours = await this.hashNeighbours(state, query, chances.byFeatures !== null);
    const byHash = await verifyNeighbours(chances.byFeatures, neighbours);
    steps.lap('hash_neighbours');
    if (byHash.length > 0) return byHash;
    const upright = chances.upright();
    const answered = new AbortController();
    const search: ChanceSearch = { ...state, query, chances, upright, answered: answered.signal };
    // The upright copy's chances run alongside the query's own pixel chances, which are answered first: neither reads
    // what the other decides (only the features and pixels both read, kept once in `fetched` and `read`), so the answer
    // is the one of the two run one after the other. A query that gets this far is rarely found by its own pixel chances
    // (every query whose image is not in the collection goes on), and these leave a core idle between their few checks
    // (a decode, a row lookup), where the upright copy's vote and verification fit. Found as it is, the upright chain
    // stops at its next step.
    let foundAsIs = false;
    const uprightSteps = new StepTimer();
    const uprightChain = this.uprightChances(search, () => foundAsIs, uprightSteps);
    // Awaited below unless the query is found as it is: its failure must not go unhandled then.
    uprightChain.catch(() => undefined);
    const placingAsIs = async () => (chances.placesAsIs ? chances.placing(query, 'sets and shares') : []);
    try {
      // A query turned on a filled canvas has its pixel chances on its upright copy only. As it is, it is no upright
      // crop (all a placement aligns) and its canvas is no collection image's frame; and its dense check found nothing
      // that the upright copy's did not: in the matching benchmark's large sample the upright copy's found all 72
      // turned queries that the query's own had found first, with every answer the same. Such queries are most of the
      // slowest searches at a million images.
      const asIs = (await upright)?.onFilledCanvas ? [] : await this.pixelChances(search, query, chances.dense, neighbours, placingAsIs, {}, steps);
      if (asIs.length > 0) {
        foundAsIs = true;
        return asIs;
      }
      const foundUpright = await uprightChain;
      steps.alongside(uprightSteps);
      return foundUpright;
    } finally {
      answered.abort();
    }
  }

  /**
   * The three pixel chances of `by` (the query as it is, or its upright copy), judged as `check`: the dense check of the
   * best-voted few (`candidates`), the whole-image check of its hash neighbours (`neighbours`) and the best-voted image,
   * and its placement in the images `placing` gives, started at once and answered in that order (`firstFound`), each
   * lapped on `steps` when given. Once answered, the checks of later chances still waiting for a compute thread are
   * withdrawn, as are all of them once the search is answered (a rotated query found as it is while its upright copy's
   * chances run): they would hold threads that the next search, or a concurrent one, waits for.
   */
  private async pixelChances(search: ChanceSearch, by: LoadedQuery, candidates: number[], neighbours: HashNeighbour[][], placing: () => Promise<number[]>, check: DenseCheck, steps?: StepTimer): Promise<Found> {
    const answered = new AbortController();
    const withdrawal = AbortSignal.any([search.answered, answered.signal]);
    const samePrint = async (found: Found) => this.withSamePrint(search, by, found);
    const dense = (async () => samePrint(await this.confirmFits(search, by, await this.weakFits(by, candidates, search.fetched, search.payload.options.check_horizontal_flip), check, withdrawal)))();
    const whole = (async () => samePrint(await this.confirmWholeImages(search, by, wholeImageCandidates(neighbours, candidates), check, withdrawal)))();
    const placed = (async () => samePrint(await this.confirmPlacements(search, by, await placing(), check, withdrawal)))();
    try {
      return await firstFound([['dense', dense], ['whole_image', whole], ['placement', placed]], steps);
    } finally {
      answered.abort();
    }
  }

  /**
   * `found` without the candidates whose print reads otherwise in `by` where they align (`printCheck`): the pixel
   * chances compare shapes, colours and edges, which two badges of one template share but for their names.
   */
  private async withSamePrint(search: ChanceSearch, by: LoadedQuery, found: Found): Promise<Found> {
    if (found.length === 0) return found;
    const stored = await this.storedPixelsOf(search, found.map(({ candidate }) => candidate));
    const differs = await Promise.all(found.map(({ candidate, result }, i) => stored[i] !== null && this.storedPrintDiffers(search, candidate, by, stored[i]!, result)));
    return found.filter((_, i) => !differs[i]);
  }

  /**
   * `printCheck` of a query and a collection image's stored pixels (decoded at their `scale` of the stored size), once
   * per image in a search (`PrintVerdicts`).
   */
  private storedPrintDiffers(state: SearchState, imagePk: number, query: LoadedQuery, stored: NormalizedImage, fit: MatchResult): Promise<boolean> {
    return state.verdicts.decide(imagePk, () => this.printCheck.differs(query.gray, rgbToGray(stored), fit, stored.scale));
  }

  /**
   * The chances of the query turned upright, when its edges show a rotation off the axes (`uprightQuery`): its own vote
   * (`verifyUprightVote`), its hash neighbours' feature verification with the query's own features, then the three
   * pixel chances again on the upright copy, judged as UPRIGHT_CHECK and answered in order (`firstFound`), the dense and
   * whole-image checks given the best-voted of its own vote (of the query's, for a query too plain to vote; the dense
   * check those of both for a copy turned on a filled canvas); what they find told in the query's own frame. Stops
   * before its next step once `stopped` (the query was found as it is). Its steps are timed on `steps`.
   */
  private async uprightChances(search: ChanceSearch, stopped: () => boolean, steps: StepTimer): Promise<Found> {
    const { query, chances, fetched } = search;
    const upright = await search.upright;
    steps.lap('upright_copy');
    if (!upright || stopped()) return [];
    const { found, voted, words } = await this.verifyUprightVote(search, upright, chances.byFeatures);
    steps.lap('upright_vote');
    if (found.length === 0 && !stopped()) {
      const uprightNeighbours = await this.hashNeighbours(search, upright);
      // Verified with the query's own features: their matches are in its frame already.
      const uprightByHash = await verifyNeighbours(chances.byFeatures, uprightNeighbours);
      if (uprightByHash.length > 0) return uprightByHash;
      if (!stopped()) {
        // The upright copy, when it or the query is worth placing, is placed where the query would be (its best-voted
        // and the images alike its colours), in the images most alike the copy's own colours (a rotated canvas's
        // fill is a colour the collection image lacks, which can rank other images first: in the matching benchmark 6
        // more of 756 family queries found, none lost) and in the first its own vote ranks (a gradient's quarter turned
        // 20°, 58th by the query's vote and 1st by its own: 1 more found, none lost; UPRIGHT_VOTED_PLACEMENTS).
        const placing = async () => {
          if (!chances.placesAsIs && !(words && worthPlacing(upright, words))) return [];
          const alike = [...(await chances.placing(query, 'sets')), ...(await chances.placing(upright, 'sets'))];
          return alike.length === 0 ? [] : [...new Set([...(voted ?? []).slice(0, UPRIGHT_VOTED_PLACEMENTS), ...alike])];
        };
        // On a filled canvas the dense check is given the best-voted of both votes: which of the two ranks a rotated
        // copy's image higher depends on a pixel of its frame (rows of digits turned -20°, 1st as they are and 8th
        // upright). Not for a rotation read off the image's own edges (a herringbone's diagonals, mostly): there the
        // query's own pixel chances run alongside, and in the matching benchmark crops of patterns waited 30 % longer
        // for their answers as the upright copy's checks held the compute threads.
        const dense = voted && upright.onFilledCanvas ? [...new Set([...voted, ...chances.dense])] : (voted ?? chances.dense);
        found.push(...(await this.pixelChances(search, upright, dense, uprightNeighbours, placing, UPRIGHT_CHECK)));
      }
      steps.lap('upright_chances');
    }
    return found.map(({ candidate, result }) => ({
      candidate,
      result: matchInRotatedFrame(result, upright.toRotated, query.features, deserializeFeatures(fetched.get(candidate)!)),
    }));
  }

  /**
   * The vote of a rotated query's upright copy, and feature verification (with the copy's features, so in its frame) of
   * its FIRST_ROUND best-voted candidates that the search has not verified. ORB's orientation makes a rotated query's
   * words only nearly its image's, and a large collection outvotes them: in 100,000 images four rotated queries (by 15°
   * and 30°, one of them also cropped, halved and re-encoded) ranked their images 87th-156th, where their upright copies'
   * votes ranked all four first. Also its DENSE_CANDIDATES best-voted, for the upright copy's pixel chances: in the
   * matching benchmark's 1,000 images, digits turned 20° ranked their image 8th as they are and 2nd upright, and only
   * the upright copy's dense check found it. With the copy's words, which tell whether it is worth placing. Nothing (and
   * no vote) for a query with too few points to verify.
   */
  private async verifyUprightVote(state: SearchState, upright: LoadedQuery, byFeatures: FeatureVerification | null): Promise<{ found: Found; voted: number[] | null; words: Uint32Array | null }> {
    if (!byFeatures) return { found: [], voted: null, words: null };
    const { ref, payload, paths } = state;
    const words = matchVocabulary().vocabulary.quantize(upright.features);
    const shortlist = await this.collections.candidates(ref, { wordLists: this.wordLists(words, upright, payload), filters: payload.options, queriedPath: queriedPath(payload) });
    for (const c of shortlist) paths.set(c.imagePk, c.filepath);
    this.trace?.voted('upright', shortlist.map((c) => c.filepath));
    const ids = shortlist.filter((c) => !byFeatures.verified.has(c.imagePk)).slice(0, FIRST_ROUND).map((c) => c.imagePk);
    for (const imagePk of ids) byFeatures.verified.add(imagePk);
    const found = await verifyInRounds(ids, ids.length, this.featureVerification(state, upright));
    return { found, voted: shortlist.slice(0, DENSE_CANDIDATES).map((c) => c.imagePk), words };
  }

  /**
   * The dense second chance's alignments (`weakFitOptions`), on the verification threads, of those `candidates` that
   * have stored features (the verification rounds read them, and always cover the best-voted), kept when they or their
   * alternatives overlap enough for a pixel comparison (`worthDenseCheck`).
   */
  private async weakFits(query: LoadedQuery, candidates: number[], stored: ReadonlyMap<number, Buffer>, checkHorizontalFlip: boolean) {
    const withFeatures = candidates.filter((imagePk) => stored.get(imagePk)?.length);
    if (withFeatures.length === 0) return [];
    const fits = await this.verifyAll(query.features, withFeatures.map((imagePk) => stored.get(imagePk)!), weakFitOptions(checkHorizontalFlip));
    return withFeatures.flatMap((imagePk, i) => (fits[i] && worthDenseCheck(fits[i]!) ? [{ imagePk, fit: fits[i]! }] : []));
  }

  /**
   * The dense second chance's pixel comparisons (`confirmWeakFit`) of weak fits: smooth or faint images whose copies
   * keep too few corners for the feature check. Only candidates with a fit have their row looked up and pixels read.
   */
  private async confirmFits(state: SearchState, query: LoadedQuery, fitting: Array<{ imagePk: number; fit: MatchResult }>, check: DenseCheck, withdrawal: AbortSignal) {
    if (fitting.length === 0) return [];
    // Rows without a stored image (imported word lists only) have nothing to compare densely.
    const pixelsOf = await this.storedPixelsOf(state, fitting.map(({ imagePk }) => imagePk));
    return this.checkEach(
      fitting.map(({ imagePk, fit }, i) => {
        const pixels = pixelsOf[i];
        return pixels && { candidate: imagePk, confirmed: this.run(denseFitTask, { query: query.rgb, target: pixelsOnly(pixels), fit, targetScale: pixels.scale, check }, withdrawal) };
      }),
    );
  }

  /**
   * Per probe (the query's whole-image hash, its mirror's with flip checks, and with `withUncut` its uncut frame's when it
   * has one), the collection images nearest it, nearest first. Fills `paths` for them.
   */
  private async hashNeighbours(state: SearchState, query: LoadedQuery, withUncut = false): Promise<HashNeighbour[][]> {
    const { options } = state.payload;
    const probes = hashProbes(query.gray, options.check_horizontal_flip);
    const cutProbes = probes.length;
    if (withUncut && query.uncutHash !== undefined) probes.push({ hash: query.uncutHash, flipped: false });
    const nearest = await this.collections.nearestByHash(state.ref, probes, options);
    return probes.map(({ flipped }, i) =>
      nearest[i].map(({ imagePk, filepath, distance }) => {
        state.paths.set(imagePk, filepath);
        return { imagePk, flipped, uncut: i >= cutProbes, distance };
      }),
    );
  }

  /**
   * When neither features nor the dense check found anything, the query's hash neighbours (`hashNeighbours`) and the
   * best-voted image (`wholeImageCandidates`) of its shape get a whole-image check (`confirmWholeImage`): copies of images
   * too smooth or too repetitive for corners, which keep the whole frame.
   */
  private async confirmWholeImages(state: SearchState, query: LoadedQuery, candidates: ReadonlyMap<number, boolean>, check: DenseCheck, withdrawal: AbortSignal) {
    if (candidates.size === 0) return [];
    const { fetched } = state;
    await this.fetchFeatures([...candidates.keys()], fetched);
    // A copy of the whole image keeps its shape: the pixels of other shapes are not read.
    const withFeatures = [...candidates.keys()].filter((imagePk) => fetched.get(imagePk)?.length && sameFrameShape(query.rgb, storedFrame(fetched.get(imagePk)!)));
    const pixelsOf = await this.storedPixelsOf(state, withFeatures);
    return this.checkEach(
      withFeatures.map((imagePk, i) => {
        const pixels = pixelsOf[i];
        const target = pixels && { rgb: pixelsOnly(pixels), features: deserializeFeatures(fetched.get(imagePk)!) };
        return target && { candidate: imagePk, confirmed: this.run(wholeImageTask, { query: queryPixels(query), target, flipped: candidates.get(imagePk)!, check }, withdrawal) };
      }),
    );
  }

  /**
   * A search's `placing`: where a query (as it is, or its upright copy) is placed by its pixels: `voted` (the best-voted
   * few), then the `alikeCount` images whose colours are most alike its own (`alikeInColour`, asked once per query),
   * which a crop too plain to vote with, or whose image the vote ranks low, still leads to; PLAIN_COLOUR_CANDIDATES for
   * one smooth throughout (`isSmoothThroughout`), whose colours are all that lead it, PLAIN_COLOUR_CANDIDATES_BY_SETS when
   * they are ranked by their sets alone. Fills `paths` for them.
   */
  private placing(state: SearchState, voted: number[], alikeCount: number): SecondChanceCandidates['placing'] {
    const { ref, payload, paths } = state;
    const shortlists = new Map<LoadedQuery, { candidates: Promise<ColourCandidate[]>; smooth: boolean }>();
    return async (by, colours) => {
      if (!shortlists.has(by)) {
        shortlists.set(by, { candidates: this.collections.alikeInColour(ref, colourSet(by.rgb), payload.options), smooth: isSmoothThroughout(by.gray) });
      }
      const { candidates, smooth } = shortlists.get(by)!;
      const count = smooth ? Math.max(alikeCount, colours === 'sets' ? PLAIN_COLOUR_CANDIDATES_BY_SETS : PLAIN_COLOUR_CANDIDATES) : alikeCount;
      const shortlist = await candidates;
      const ranked = await this.inColourOrder(state, by.rgb, shortlist, count, colours);
      const alike = ranked.slice(0, count);
      for (const { imagePk, filepath } of alike) paths.set(imagePk, filepath);
      this.trace?.alikeInColour('toRotated' in by ? 'upright' : 'query', ranked.map((c) => c.filepath), alike.map((c) => c.filepath));
      return [...new Set([...voted, ...alike.map(({ imagePk }) => imagePk)])];
    };
  }

  /**
   * The index's `shortlist` of images alike `rgb` by colour sets (`COLOUR_SHORTLIST`) in the order its first `count` are
   * placed: as it is, or by `order` ranked again by their colour shares too (`rankedByColourShares`) when it holds more
   * than `count`.
   */
  private async inColourOrder(state: SearchState, rgb: RgbImage, shortlist: ColourCandidate[], count: number, order: ColourOrder): Promise<ColourCandidate[]> {
    if (order === 'sets' || shortlist.length <= count) return shortlist;
    const stored = await this.storedSharesOf(state, shortlist.map(({ imagePk }) => imagePk));
    return rankedByColourShares(shortlist, colourShares(rgb), stored);
  }

  /**
   * The placement chance (`confirmPlacedCrop`) of `candidates` that have stored features (read into `fetched` when the
   * verification rounds did not) and can hold the query's colours (`holdingPlacedColours`): upright crops that neither
   * features nor a weak fit could align. Their stored pixels are taken from `read` when there, and added to it.
   */
  private async confirmPlacements(state: SearchState, query: LoadedQuery, candidates: number[], check: DenseCheck, withdrawal: AbortSignal) {
    const { fetched } = state;
    await this.fetchFeatures(candidates, fetched);
    const withFeatures = await this.holdingPlacedColours(state, query, candidates.filter((imagePk) => fetched.get(imagePk)?.length));
    const pixelsOf = await this.storedPixelsOf(state, withFeatures);
    return this.checkEach(
      withFeatures.map((imagePk, i) => {
        const pixels = pixelsOf[i];
        const target = pixels && { rgb: pixelsOnly(pixels), features: deserializeFeatures(fetched.get(imagePk)!) };
        return target && { candidate: imagePk, confirmed: this.run(placedCropTask, { query: queryPixels(query), target, check }, withdrawal) };
      }),
    );
  }

  /**
   * Those of `candidates` whose stored colour shares can hold the query's colours where it would be placed
   * (`mayHoldPlacement`), in their order, and those indexed without shares: the others' pixels are not read, nor the
   * query searched in them.
   */
  private async holdingPlacedColours(state: SearchState, query: LoadedQuery, candidates: number[]): Promise<number[]> {
    if (candidates.length === 0) return candidates;
    const { fetched } = state;
    const stored = await this.storedSharesOf(state, candidates);
    const colours = placedColours(query.rgb, findContentInsideFlatBands);
    return candidates.filter((imagePk) => {
      const shares = stored.get(imagePk);
      return !shares || mayHoldPlacement(colours, decodeColourShares(shares), storedFrame(fetched.get(imagePk)!));
    });
  }

  /**
   * The stored colour shares (`colourSharesOf`) of those `imagePks` indexed with them. Those in `shares` (read, or being
   * read, by another step of the search) are not read again; the others are added to it.
   */
  private async storedSharesOf({ shares }: SearchState, imagePks: readonly number[]): Promise<Map<number, Uint8Array>> {
    const stored = await readOnce(shares, imagePks, (unread) => {
      const reading = this.index.colourSharesOf(unread);
      return async (imagePk) => (await reading).get(imagePk);
    });
    return new Map(imagePks.flatMap((imagePk, i) => (stored[i] ? [[imagePk, stored[i]!] as const] : [])));
  }

  /**
   * The pixel checks of one second chance's candidates, started at once (on the compute threads when there are), and
   * the confirmed ones in the candidates' order; a candidate without stored pixels (null) has nothing to check.
   */
  private async checkEach(checks: Array<{ candidate: number; confirmed: Promise<MatchResult | null> } | null>): Promise<Array<{ candidate: number; result: MatchResult }>> {
    const present = checks.filter((c) => c !== null);
    const results = await Promise.all(present.map(({ confirmed }) => confirmed));
    return present.flatMap(({ candidate }, i) => (results[i] ? [{ candidate, result: results[i]! }] : []));
  }

  /** Reads into `fetched` the stored features of those `imagePks` it does not hold yet. */
  private async fetchFeatures(imagePks: readonly number[], fetched: Map<number, Buffer>): Promise<void> {
    const missing = imagePks.filter((imagePk) => !fetched.has(imagePk));
    if (missing.length === 0) return;
    for (const [imagePk, features] of await this.index.features(missing)) fetched.set(imagePk, features);
  }

  /**
   * The stored pixels of `imagePks` (`storedPixels`), null for a row without a stored image. Those in `read` (what the
   * search's other steps read, or are reading) are not read again; the others are added to it. The reads and decodes
   * run at once (sharp decodes off the main thread): on a query with no match they are most of a second chance's time,
   * and the second chances look at the same best-voted images.
   */
  private storedPixelsOf({ ref, paths, read }: SearchState, imagePks: readonly number[]): Promise<Array<NormalizedImage | null>> {
    return readOnce(read, imagePks, (unread) => {
      const rows = this.images.findByPaths(ref, unread.map((imagePk) => paths.get(imagePk)!));
      return async (imagePk) => {
        const normBlobKey = (await rows).get(paths.get(imagePk)!)?.norm_blob_key;
        return normBlobKey ? this.storedPixels(normBlobKey) : null;
      };
    });
  }

  /**
   * A collection image's stored normalised copy decoded at about half size (`scale` of the stored size, which its
   * features refer to), for the pixel comparisons of the second chances; null when the blob is gone. In shared memory:
   * the dense check, whole-image check and placements of one search can each send it to a compute thread.
   */
  private async storedPixels(normBlobKey: string): Promise<NormalizedImage | null> {
    const data = await this.blobs.get(normBlobKey);
    return data && pixelsInSharedMemory(await normalizeImage(data, { preferredSide: SECOND_CHANCE_DECODE_SIDE }));
  }

  /** The query's visual words (`words`, of its features), and its mirror's for flip checks: what the vote ranks by. */
  private wordLists(words: Uint32Array, query: LoadedQuery, payload: SearchPayload): Uint32Array[] {
    const wordLists = [words];
    if (payload.options.check_horizontal_flip && query.features.mirrored) wordLists.push(matchVocabulary().vocabulary.quantize(query.features.mirrored));
    return wordLists;
  }

  private async discardStaged(source: QuerySource): Promise<void> {
    if ('staged_key' in source) await this.blobs.delete(source.staged_key);
  }
}

/** `steps` that add each candidate they verify to `verified`. */
function recordingVerified<L, R>(steps: RoundSteps<number, L, R>, verified: Set<number>): RoundSteps<number, L, R> {
  return {
    read: steps.read,
    verify: (batch, read) => {
      for (const imagePk of batch) verified.add(imagePk);
      return steps.verify(batch, read);
    },
  };
}
