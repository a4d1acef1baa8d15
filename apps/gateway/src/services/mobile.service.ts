import { INGEST_POLICIES } from '@loupe/jobs';
import type { CollectionService } from './collection.service';
import type { MatchingService } from './matching.service';
import type { OperationTable } from './operation';


/** The mobile service: adds images (no overwrite), searches and compares them, reports their presence and health. */
export function mobileOperations(collection: CollectionService, matching: MatchingService): OperationTable {
  return {
    add: (ctx) => collection.add(ctx, INGEST_POLICIES.mobile),
    search: (ctx) => matching.search(ctx, INGEST_POLICIES.mobile.preferred_side),
    compare: (ctx) => matching.compare(ctx, INGEST_POLICIES.mobile.preferred_side),
    get_info: (ctx) => collection.getInfo(ctx, { reportFingerprint: true }),
    get_metadata: (ctx) => collection.getMetadata(ctx),
    delete: (ctx) => collection.delete(ctx),
    list: (ctx) => collection.list(ctx),
    count: (ctx) => collection.count(ctx),
    ping: () => collection.ping(),
  };
}
