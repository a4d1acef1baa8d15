import { INGEST_POLICIES } from '@loupe/jobs';
import type { CollectionService } from './collection.service';
import type { MatchingService } from './matching.service';
import type { OperationTable } from './operation';


/** The match service: compare two images; and, as client libraries expect, a searchable collection whose add replaces. */
export function matchOperations(collection: CollectionService, matching: MatchingService): OperationTable {
  return {
    compare: (ctx) => matching.compare(ctx, INGEST_POLICIES.match.preferred_side),
    search: (ctx) => matching.search(ctx, INGEST_POLICIES.match.preferred_side),
    add: (ctx) => collection.add(ctx, INGEST_POLICIES.match),
    delete: (ctx) => collection.delete(ctx),
    list: (ctx) => collection.list(ctx),
    count: (ctx) => collection.count(ctx),
    ping: () => collection.ping(),
  };
}
