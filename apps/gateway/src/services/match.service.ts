import type { CollectionService } from './collection.service';
import type { MatchingService } from './matching.service';
import type { OperationTable } from './operation';

/** Specification 8: the match service's preferred smallest image side. */
export const MATCH_PREFERRED_SIDE = 600;

/** The match service: compare two images; and, as client libraries expect, a searchable collection whose add replaces. */
export function matchOperations(collection: CollectionService, matching: MatchingService): OperationTable {
  return {
    compare: (ctx) => matching.compare(ctx, MATCH_PREFERRED_SIDE),
    search: (ctx) => matching.search(ctx, MATCH_PREFERRED_SIDE),
    add: (ctx) => collection.add(ctx, { onExisting: 'replace', preferredSide: MATCH_PREFERRED_SIDE, cropBorders: true }),
    delete: (ctx) => collection.delete(ctx),
    list: (ctx) => collection.list(ctx),
    count: (ctx) => collection.count(ctx),
    ping: () => collection.ping(),
  };
}
