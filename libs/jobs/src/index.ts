export * from './blob-keys';
export * from './contracts';
export { alreadyExistsMessage } from './ingest.service';
export type { IngestHook, IngestHookInput, IngestHooks } from './ingest.service';
export * from './processors';
export * from './stopwatch';
