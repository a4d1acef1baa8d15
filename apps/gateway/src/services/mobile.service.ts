import { INGEST_POLICIES } from '@loupe/jobs';
import { CONTRACTS } from '../contracts';
import type { CollectionService } from './collection.service';
import type { MatchingService } from './matching.service';
import { operation, OperationTable } from './operation';

const MOBILE = CONTRACTS.mobile;

/** The mobile service: adds images (no overwrite), searches and compares them, reports their presence and health. */
export function mobileOperations(collection: CollectionService, matching: MatchingService): OperationTable {
  return {
    add: operation(MOBILE.add, (ctx, input) => collection.add(ctx, input.images, INGEST_POLICIES.mobile)),
    search: operation(MOBILE.search, (ctx, input) => matching.search(ctx, input, INGEST_POLICIES.mobile.preferred_side)),
    compare: operation(MOBILE.compare, (ctx, input) => matching.compare(ctx, input, INGEST_POLICIES.mobile.preferred_side)),
    get_info: operation(MOBILE.get_info, (ctx, input) => collection.getInfo(ctx, input.filepaths, { reportFingerprint: true })),
    get_metadata: operation(MOBILE.get_metadata, (ctx, input) => collection.getMetadata(ctx, input.filepaths)),
    delete: operation(MOBILE.delete, (ctx, input) => collection.delete(ctx, input.filepaths)),
    list: operation(MOBILE.list, (ctx, input) => collection.list(ctx, input)),
    count: operation(MOBILE.count, (ctx) => collection.count(ctx)),
    ping: operation(MOBILE.ping, () => collection.ping()),
  };
}
