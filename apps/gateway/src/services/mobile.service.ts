import type { CollectionService } from './collection.service';
import type { MatchingService } from './matching.service';
import type { OperationTable } from './operation';

/** Specification 8: the mobile service's preferred smallest image side. */
export const MOBILE_PREFERRED_SIDE = 600;

/** The mobile service: adds images (no overwrite), searches and compares them, reports their presence and health. */
export function mobileOperations(collection: CollectionService, matching: MatchingService): OperationTable {
  return {
    add: (ctx) => collection.add(ctx, { onExisting: 'refuse', preferredSide: MOBILE_PREFERRED_SIDE, cropBorders: true }),
    search: (ctx) => matching.search(ctx, MOBILE_PREFERRED_SIDE),
    compare: (ctx) => matching.compare(ctx, MOBILE_PREFERRED_SIDE),
    get_info: (ctx) => collection.getInfo(ctx, { reportFingerprint: true }),
    get_metadata: (ctx) => collection.getMetadata(ctx),
    delete: (ctx) => collection.delete(ctx),
    list: (ctx) => collection.list(ctx),
    count: (ctx) => collection.count(ctx),
    ping: () => collection.ping(),
  };
}
