import { INGEST_POLICIES } from '@loupe/jobs';
import { CONTRACTS } from '../contracts';
import type { CollectionService } from './collection.service';
import type { MatchingService } from './matching.service';
import { operation, OperationTable } from './operation';

const MATCH = CONTRACTS.match;

/** The match service: compare two images; and, as client libraries expect, a searchable collection whose add replaces. */
export function matchOperations(collection: CollectionService, matching: MatchingService): OperationTable {
  return {
    compare: operation(MATCH.compare, (ctx, input) => matching.compare(ctx, input, INGEST_POLICIES.match.preferred_side)),
    search: operation(MATCH.search, (ctx, input) => matching.search(ctx, input, INGEST_POLICIES.match.preferred_side)),
    add: operation(MATCH.add, (ctx, input) => collection.add(ctx, input.images, INGEST_POLICIES.match)),
    delete: operation(MATCH.delete, (ctx, input) => collection.delete(ctx, input.filepaths)),
    list: operation(MATCH.list, (ctx, input) => collection.list(ctx, input)),
    count: operation(MATCH.count, (ctx) => collection.count(ctx)),
    ping: operation(MATCH.ping, () => collection.ping()),
  };
}
