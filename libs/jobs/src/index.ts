export * from './blob-keys';
export * from './contracts';
export { alreadyExistsMessage } from './ingest.service';
export { FLEET_PLAN_PARALLELISM } from './ingest-planning';
export { NORMALIZED_JPEG_QUALITY } from './image-preparation';
export type { IngestHook, IngestHookInput, IngestHooks } from './ingest.service';
export * from './processors';
export { JOB_CLASSES, JOB_POLICY, jobClassOf, runJob, type JobPayload, type JobProcessors, type JobResult, type JobTypes } from './job-registry';
export { computeThreads, defaultComputeThreads, IN_THIS_THREAD, type Compute } from './compute';
export * from './stopwatch';
export * from './step-timer';
export { overlayKey } from './match/overlay-store';
export { MatchIndexCache, type IndexSnapshotOptions } from './match/index-cache';
export {
  COLLECTION_CANDIDATES_KIND,
  COLOUR_MIN_LIKENESS,
  COLOUR_SHORTLIST,
  collectionCandidateKind,
  collectionCandidateKinds,
  LocalCollectionIndex,
  mergeShortlists,
  parseCollectionShardSets,
  QueuedCollectionIndex,
  rankedByColourShares,
  type CollectionSearchIndex,
} from './match/collection-index';
export { IndexSnapshots } from './match/index-snapshot';
export { nativeScaleWords } from './match/native-scale-vote';
export { MAX_VERIFIED } from './match/verify-rounds';
export type { SearchTrace, TracedQuery } from './match/search-trace';
export { startVocabularyMigration, VocabularyMigration, type MigrationReport } from './match/vocabulary-migration';
export { compileGlob, Glob, GlobError, MAX_GLOB_LENGTH, pathPredicate } from './match/path-filter';
export type { PathFilters } from './match/path-filter';
export * from './color-contracts';
export * from './color-metadata';
export { COLOR_PREFERRED_SIDE } from './color-palettes';
export { COLOR_SCOPE_DEFAULT_MIN_SCORE } from './color.service';
export * from './wine';
export * from './public-index';
export * from './ingest-policy';
export { MIN_STAGING_AGE_HOURS, StagingSweeper } from './staging-sweeper';
export type { StagingSweepReport } from './staging-sweeper';
export { MIN_ORPHAN_AGE_HOURS, OrphanBlobSweeper, type OrphanSweepReport, type SweepCursors } from './orphan-blob-sweeper';
