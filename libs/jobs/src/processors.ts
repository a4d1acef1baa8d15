import type { ProcessorMap } from '@loupe/queue';
import type { BlobStore, ImageRepository } from '@loupe/storage';
import { DeletePayload, FingerprintPayload, IngestPayload, JobKind } from './contracts';
import { DeleteService } from './delete.service';
import { FingerprintService } from './fingerprint.service';
import { IngestHooks, IngestService } from './ingest.service';

export interface ProcessorDeps {
  images: ImageRepository;
  blobs: BlobStore;
  /** Service-specific ingest steps (search index entries, color palettes...). */
  ingestHooks?: IngestHooks;
}

/** Every job kind and the service method that handles it: the one place to read what a worker does. */
export function createProcessors(deps: ProcessorDeps): ProcessorMap {
  const ingest = new IngestService(deps.images, deps.blobs, deps.ingestHooks);
  const deletion = new DeleteService(deps.images, deps.blobs);
  const fingerprint = new FingerprintService(deps.images, deps.blobs);
  return {
    [JobKind.Ingest]: (payload: IngestPayload) => ingest.ingest(payload),
    [JobKind.Delete]: (payload: DeletePayload) => deletion.delete(payload),
    [JobKind.Fingerprint]: (payload: FingerprintPayload) => fingerprint.refingerprint(payload),
  };
}
