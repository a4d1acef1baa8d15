import { classTablePolicy, type ConcurrencyClass, type JobQueue, type JobRequest, type Processor, type QueuePolicy } from '@loupe/queue';
import type { ColorCollectionPayload, ColorCollectionResult, ColorImagesPayload, ColorImagesResult, ColorMetadataPayload, ColorMetadataResult, ColorSearchPayload, ColorSearchResult } from './color-contracts';
import { ComparePayload, CompareResult, DeletePayload, DeleteResult, FingerprintPayload, FingerprintResult, IngestPayload, IngestResult, JobKind, SearchPayload, SearchResult } from './contracts';
import type { EncodedItemPlan, IngestPreparePayload } from './ingest-planning';
import { COLLECTION_CANDIDATES_KIND } from './match/collection-index';
import type { PublicSearchPayload, PublicSearchResult } from './public-index/contracts';
import { PUBLIC_CANDIDATES_KIND } from './public-index/shard-sets';
import type { WineExtractPayload, WineExtractResult, WineSearchPayload, WineSearchResult } from './wine/contracts';

/**
 * Every job kind: what its payload and its result are, and which admission queue it waits in. A write changes a
 * collection and runs one at a time per account; everything else reads (at most 4 at once per account and service).
 */
interface JobSpec<P, R, C extends ConcurrencyClass> {
  payload: P;
  result: R;
  class: C;
}

export interface JobTypes {
  [JobKind.Ingest]: JobSpec<IngestPayload, IngestResult, 'write'>;
  /** One image of a fanned-out add, prepared by any worker; it changes no collection (its add's ingest job commits). */
  [JobKind.IngestPrepare]: JobSpec<IngestPreparePayload, EncodedItemPlan, 'read'>;
  [JobKind.Delete]: JobSpec<DeletePayload, DeleteResult, 'write'>;
  /** Rewrites an image's index entries, so it queues with the other writes of the account. */
  [JobKind.Fingerprint]: JobSpec<FingerprintPayload, FingerprintResult, 'write'>;
  [JobKind.Search]: JobSpec<SearchPayload, SearchResult, 'read'>;
  [JobKind.Compare]: JobSpec<ComparePayload, CompareResult, 'read'>;
  [JobKind.ColorSearch]: JobSpec<ColorSearchPayload, ColorSearchResult, 'read'>;
  [JobKind.ColorImages]: JobSpec<ColorImagesPayload, ColorImagesResult, 'read'>;
  [JobKind.ColorCollection]: JobSpec<ColorCollectionPayload, ColorCollectionResult, 'read'>;
  /** update_metadata rewrites images' metadata: a write, like update. */
  [JobKind.ColorMetadata]: JobSpec<ColorMetadataPayload, ColorMetadataResult, 'write'>;
  [JobKind.WineSearch]: JobSpec<WineSearchPayload, WineSearchResult, 'read'>;
  [JobKind.WineExtract]: JobSpec<WineExtractPayload, WineExtractResult, 'read'>;
  [JobKind.PublicSearch]: JobSpec<PublicSearchPayload, PublicSearchResult, 'read'>;
}

export type JobPayload<K extends JobKind> = JobTypes[K]['payload'];
export type JobResult<K extends JobKind> = JobTypes[K]['result'];

/** A processor for every job kind, each typed by its payload and result: a kind without one does not compile. */
export type JobProcessors = { [K in JobKind]: Processor<JobPayload<K>, JobResult<K>> };

/** The admission class of every kind, as JobTypes declares it (checked by the compiler against that table). */
export const JOB_CLASSES: { readonly [K in JobKind]: JobTypes[K]['class'] } = {
  [JobKind.Ingest]: 'write',
  [JobKind.IngestPrepare]: 'read',
  [JobKind.Delete]: 'write',
  [JobKind.Fingerprint]: 'write',
  [JobKind.Search]: 'read',
  [JobKind.Compare]: 'read',
  [JobKind.ColorSearch]: 'read',
  [JobKind.ColorImages]: 'read',
  [JobKind.ColorCollection]: 'read',
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
