import type { CollectionService } from './collection.service';
import type { OperationTable } from './operation';

/** Specification 8: the mobile service's preferred smallest image side. */
export const MOBILE_PREFERRED_SIDE = 600;

/** The mobile service: adds images (no overwrite), reports their presence and health, returns their image_id. */
export function mobileOperations(collection: CollectionService): OperationTable {
  return {
    add: (ctx) => collection.add(ctx, { onExisting: 'refuse', preferredSide: MOBILE_PREFERRED_SIDE }),
    get_info: (ctx) => collection.getInfo(ctx, { reportFingerprint: true }),
    get_metadata: (ctx) => collection.getMetadata(ctx),
    delete: (ctx) => collection.delete(ctx),
    list: (ctx) => collection.list(ctx),
    count: (ctx) => collection.count(ctx),
    ping: () => collection.ping(),
  };
}
