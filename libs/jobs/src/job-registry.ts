import { classTablePolicy, type ConcurrencyClass, type JobQueue, type JobRequest, type Processor, type QueuePolicy } from '@loupe/queue';
import type { ColorCollectionPayload, ColorCollectionResult, ColorImagesPayload, ColorImagesResult, ColorMetadataPayload, ColorMetadataResult, ColorSearchPayload, ColorSearchResult } from './color-contracts';
import { ComparePayload, CompareResult, DeletePayload, DeleteResult, FingerprintPayload, FingerprintResult, IngestPayload, IngestResult, JobKind, SearchPayload, SearchResult } from './contracts';
import type { EncodedItemPlan, IngestPreparePayload } from './ingest-planning';
import { COLLECTION_CANDIDATES_KIND } from './match/collection-index';
import type { PublicSearchPayload, PublicSearchResult } from './public-index/contracts';
import { PUBLIC_CANDIDATES_KIND } from './public-index/shard-sets';
import type { WineExtractPayload, WineExtractResult, WineSearchPayload, WineSearchResult } from './wine/contracts';

/** What a job of one kind is given and answers. */
interface JobSpec<P, R> {
  payload: P;
  result: R;
}

/** Every job kind's payload and result. */
export interface JobTypes {
  [JobKind.Ingest]: JobSpec<IngestPayload, IngestResult>;
  [JobKind.IngestPrepare]: JobSpec<IngestPreparePayload, EncodedItemPlan>;
  [JobKind.Delete]: JobSpec<DeletePayload, DeleteResult>;
  [JobKind.Fingerprint]: JobSpec<FingerprintPayload, FingerprintResult>;
  [JobKind.Search]: JobSpec<SearchPayload, SearchResult>;
  [JobKind.Compare]: JobSpec<ComparePayload, CompareResult>;
  [JobKind.ColorSearch]: JobSpec<ColorSearchPayload, ColorSearchResult>;
  [JobKind.ColorImages]: JobSpec<ColorImagesPayload, ColorImagesResult>;
  [JobKind.ColorCollection]: JobSpec<ColorCollectionPayload, ColorCollectionResult>;
  [JobKind.ColorMetadata]: JobSpec<ColorMetadataPayload, ColorMetadataResult>;
  [JobKind.WineSearch]: JobSpec<WineSearchPayload, WineSearchResult>;
  [JobKind.WineExtract]: JobSpec<WineExtractPayload, WineExtractResult>;
  [JobKind.PublicSearch]: JobSpec<PublicSearchPayload, PublicSearchResult>;
}

export type JobPayload<K extends JobKind> = JobTypes[K]['payload'];
export type JobResult<K extends JobKind> = JobTypes[K]['result'];

/** A processor for every job kind, each typed by its payload and result: a kind without one does not compile. */
export type JobProcessors = { [K in JobKind]: Processor<JobPayload<K>, JobResult<K>> };

/**
 * Which admission queue every kind waits in: a write changes a collection and runs one at a time per account; the rest
 * read, at most 4 at once per account and service (docs/protocol.md §4). A kind missing here does not compile.
 */
export const JOB_CLASSES: { readonly [K in JobKind]: ConcurrencyClass } = {
  [JobKind.Ingest]: 'write',
  // One image of a fanned-out add, prepared by any worker: it changes no collection (its add's ingest job commits).
  [JobKind.IngestPrepare]: 'read',
  [JobKind.Delete]: 'write',
  // Rewrites an image's index entries, so it queues with the other writes of the account.
  [JobKind.Fingerprint]: 'write',
  [JobKind.Search]: 'read',
  [JobKind.Compare]: 'read',
  [JobKind.ColorSearch]: 'read',
  [JobKind.ColorImages]: 'read',
  [JobKind.ColorCollection]: 'read',
  // update_metadata rewrites images' metadata: a write, like update.
  [JobKind.ColorMetadata]: 'write',
  [JobKind.WineSearch]: 'read',
  [JobKind.WineExtract]: 'read',
  [JobKind.PublicSearch]: 'read',
};

const isJobKind = (kind: string): kind is JobKind => Object.prototype.hasOwnProperty.call(JOB_CLASSES, kind);

/**
 * The admission class of a kind: the table's, and for the shard-set owners' candidate kinds (one per configured set,
 * named `<prefix>_<set>`), read. Undefined for any other name, which the queue then refuses instead of guessing.
 */
export function jobClassOf(kind: string): ConcurrencyClass | undefined {
  if (isJobKind(kind)) return JOB_CLASSES[kind];
  if (kind.startsWith(`${PUBLIC_CANDIDATES_KIND}_`) || kind.startsWith(`${COLLECTION_CANDIDATES_KIND}_`)) return 'read';
  return undefined;
}

/** The queue policy of Loupe's jobs: both queue adapters are built with it. */
export const JOB_POLICY: QueuePolicy = classTablePolicy(jobClassOf);

/** Runs a job of `kind` on `queue`, its payload and result typed by the registry. */
export function runJob<K extends JobKind>(queue: JobQueue, request: JobRequest<JobPayload<K>> & { kind: K }): Promise<JobResult<K>> {
  return queue.run<JobResult<K>, JobPayload<K>>(request);
}
