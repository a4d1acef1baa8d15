import type { VoteHelper } from '@loupe/fingerprint';
import { LazyOcrPool } from '@loupe/ocr';
import type { JobQueue, ProcessorMap } from '@loupe/queue';
import { BlobStore, ColorRepository, Db, ImageRepository, MatchIndexRepository, PublicIndexRepository, WineLabelRepository } from '@loupe/storage';
import { ColorIngestHook } from './color-palettes';
import { ColorService } from './color.service';
import { Compute, computeThreads, IN_THIS_THREAD } from './compute';
import { JobKind } from './contracts';
import { DeleteService } from './delete.service';
import { FingerprintService } from './fingerprint.service';
import { encodeItemPlan, LocalItemPlanner, QueuedItemPlanner } from './ingest-planning';
import { IngestHook, IngestService } from './ingest.service';
import { answerCandidateJob, collectionCandidateKind, CollectionCandidatesPayload, CollectionSearchIndex, LocalCollectionIndex, parseCollectionShardSets, QueuedCollectionIndex } from './match/collection-index';
import { IndexSnapshotOptions, MatchIndexCache } from './match/index-cache';
import { IndexSnapshots } from './match/index-snapshot';
import type { JobProcessors } from './job-registry';
import { MatchService } from './match/match.service';
import { NO_PRINT_CHECK, OcrPrintCheck, type PrintCheck } from './match/print-check';
import { SearchIndexHook } from './match/search-index.hook';
import type { SearchTrace } from './match/search-trace';
import { publicIndexProcessors } from './public-index';
import type { ShardSetOptions } from './shard-sets';
import { WineExtractService, WineLabelHook, WineLabelReader, WineSearchService } from './wine';

/** Collections searched by image matching: their adds also write visual words to the search index. */
export const MATCHING_SERVICES: ReadonlySet<string> = new Set(['mobile', 'match', 'wine']);

export interface ProcessorDeps {
  images: ImageRepository;
  blobs: BlobStore;
  matchIndex: MatchIndexRepository;
  /** The color service's palettes and metadata live in their own tables, reached through this database. */
  db: Db;
  /** Public index shard sets owned by other processes (PUBLIC_SHARD_SETS) and the queue reaching them. */
  publicShards?: ShardSetOptions;
  /** Folder and minimum collection size of search index snapshots (INDEX_SNAPSHOT_DIR); none without. */
  indexSnapshots?: { dir: string; minImages: number };
  /** Collection shard sets owned by other processes (COLLECTION_SHARD_SETS) and the queue reaching them. */
  collectionShards?: ShardSetOptions;
  /** Bound on the memory of the collection indexes kept (INDEX_CACHE_MAX_MB); unbounded without. */
  indexCacheMaxBytes?: number;
  /**
   * With INGEST_FAN_OUT, the images of an add are prepared by `ingest_prepare` jobs on any worker, reached through
   * `queue`, `parallelism` of a batch at once; without, on this process's compute threads.
   */
  ingestFanOut?: { queue: () => JobQueue | null; parallelism: number };
  /** Compute threads (COMPUTE_THREADS); `computeThreads`' default without. */
  computeThreads?: number;
  /** Told the candidates each search chose (`SearchTrace`: the matching benchmark's record of its misses); none without. */
  searchTrace?: SearchTrace;
}

export interface WorkerServices {
  processors: ProcessorMap;
  /** Tasks the process's compute threads run at once. */
  computeParallelism: number;
  /** Stops the compute threads and the OCR workers, if any were started. */
  close(): Promise<void>;
}

function indexSnapshotOptions(settings: ProcessorDeps['indexSnapshots']): IndexSnapshotOptions | undefined {
  return settings && { snapshots: new IndexSnapshots(settings.dir), minImages: settings.minImages };
}

/** Every job kind and the service method that handles it: the one place to read what a worker does. */
export function createWorkerServices(deps: ProcessorDeps): WorkerServices {
  const compute = computeThreads(deps.computeThreads);
  // One OCR pool (a tesseract worker per core) for the wine service's labels and the names of aligned designs, started by
  // the first reading.
  const ocr = new LazyOcrPool();
  return {
    processors: createProcessors(deps, compute, ocr),
    computeParallelism: compute.parallelism,
    close: async () => {
      await Promise.all([compute.close(), ocr.close()]);
    },
  };
}

/**
 * `compute` is where images are prepared and shortlists verified (the caller closes it): the calling thread by default,
 * `computeThreads()` to use every core. `ocr`: the tesseract workers every reader of print shares (the caller closes it).
 */
export function createProcessors(
  deps: ProcessorDeps,
  compute: Compute = IN_THIS_THREAD,
  ocr: LazyOcrPool = new LazyOcrPool(),
  labelReader: WineLabelReader = new WineLabelReader(ocr),
): JobProcessors & ProcessorMap {
  const verifyAll = compute.verifyAll;
  const searchIndex = new SearchIndexHook(deps.matchIndex, compute.run);
  const colorRepository = new ColorRepository(deps.db);
  const colorPalette = new ColorIngestHook(colorRepository, compute.run);
  const wineLabels = new WineLabelRepository(deps.db);
  const wineLabel = new WineLabelHook(labelReader, wineLabels);
  const hooksFor = (service: string): IngestHook[] =>
    service === 'wine' ? [searchIndex, wineLabel] : MATCHING_SERVICES.has(service) ? [searchIndex] : service === 'color' ? [colorPalette] : [];
  const localPlanner = new LocalItemPlanner(deps.images, deps.blobs, hooksFor, compute);
  const planner = deps.ingestFanOut ? new QueuedItemPlanner(deps.ingestFanOut.queue, deps.ingestFanOut.parallelism) : localPlanner;
  const ingest = new IngestService(deps.images, deps.blobs, hooksFor, compute, planner);
  const collections = collectionIndexes(deps, compute.voteThread);
  const matchingBy = (printCheck: PrintCheck) => new MatchService(deps.images, deps.matchIndex, deps.blobs, collections.index, verifyAll, compute.run, compute.runOnSpareThread, deps.searchTrace, printCheck);
  const matching = matchingBy(new OcrPrintCheck(ocr));
  const deletion = new DeleteService(deps.images, deps.blobs);
  const fingerprint = new FingerprintService(deps.images, deps.blobs, (service) => (MATCHING_SERVICES.has(service) ? searchIndex : null));
  const color = new ColorService(colorRepository, deps.blobs);
  // A wine search reads the query's label and ranks its image matches by their labels' text (`rankByLabel`): another
  // label's print is weighed there, and reading it again in each match cost 130 ms at p50 (tools/bench/wine, quick).
  const wineSearch = new WineSearchService(matchingBy(NO_PRINT_CHECK), labelReader, wineLabels, deps.blobs);
  const wineExtract = new WineExtractService(labelReader, deps.blobs);
  return {
    [JobKind.Ingest]: (payload) => ingest.ingest(payload),
    [JobKind.IngestPrepare]: async ({ payload, item }) => encodeItemPlan(await localPlanner.plan(payload, item)),
    [JobKind.Delete]: (payload) => deletion.delete(payload),
    [JobKind.Fingerprint]: (payload) => fingerprint.refingerprint(payload),
    [JobKind.Search]: (payload) => matching.search(payload),
    [JobKind.Compare]: (payload) => matching.compare(payload),
    [JobKind.ColorSearch]: (payload) => color.search(payload),
    [JobKind.ColorImages]: (payload) => color.images(payload),
    [JobKind.ColorCollection]: (payload) => color.collection(payload),
    [JobKind.ColorMetadata]: (payload) => color.updateMetadata(payload),
    [JobKind.WineSearch]: (payload) => wineSearch.search(payload),
    [JobKind.WineExtract]: (payload) => wineExtract.extract(payload),
    ...collections.ownerProcessors,
    ...publicIndexProcessors(new PublicIndexRepository(deps.db), deps.blobs, compute, deps.publicShards),
  };
}

/**
 * The collections' search index: held whole in this process, or, with COLLECTION_SHARD_SETS, asked of each shard set's
 * owners through the queue; then one `collection_candidates_<set>` kind per set, whose processor holds that set's shards
 * of every collection (loaded by its first job, so a process loads only the sets whose kinds it actually runs).
 */
function collectionIndexes(deps: ProcessorDeps, voteHelper: VoteHelper | null): { index: CollectionSearchIndex; ownerProcessors: ProcessorMap } {
  const snapshots = indexSnapshotOptions(deps.indexSnapshots);
  const sets = parseCollectionShardSets(deps.collectionShards?.sets) ?? [];
  const maxBytes = deps.indexCacheMaxBytes ?? Infinity;
  if (sets.length === 0) return { index: new LocalCollectionIndex(new MatchIndexCache(deps.matchIndex, snapshots, undefined, maxBytes), voteHelper), ownerProcessors: {} };
  const ownerProcessors: ProcessorMap = {};
  for (const set of sets) {
    let owner: LocalCollectionIndex | null = null;
    ownerProcessors[collectionCandidateKind(set)] = (payload: CollectionCandidatesPayload) =>
      answerCandidateJob((owner ??= new LocalCollectionIndex(new MatchIndexCache(deps.matchIndex, snapshots, set, maxBytes), voteHelper)), payload);
  }
  return { index: new QueuedCollectionIndex(sets, deps.collectionShards?.queue ?? (() => null)), ownerProcessors };
}
