import type { IngestPayload } from './contracts';
import { COLOR_PREFERRED_SIDE } from './color-palettes';
import { WINE_PREFERRED_SIDE } from './wine/contracts';

export const COLLECTION_SERVICES = ['mobile', 'match', 'color', 'wine'] as const;
export type CollectionServiceName = (typeof COLLECTION_SERVICES)[number];

/** docs/protocol.md §9: preferred smallest image side of the mobile and match services. */
export const MATCHING_PREFERRED_SIDE = 600;

export type IngestPolicy = Pick<IngestPayload, 'on_existing' | 'preferred_side' | 'crop_borders'>;

/**
 * How each service's add (color: update) stores images, shared by the gateway and the CLI's bulk add:
 * - wine and mobile refuse an existing path, match and color replace it (docs/protocol.md §7);
 * - preferred sides of docs/protocol.md §9;
 * - the matching services crop solid borders first (docs/protocol.md §8: rectangles refer to the cropped image).
 */
export const INGEST_POLICIES: Readonly<Record<CollectionServiceName, IngestPolicy>> = {
  mobile: { on_existing: 'refuse', preferred_side: MATCHING_PREFERRED_SIDE, crop_borders: true },
  match: { on_existing: 'replace', preferred_side: MATCHING_PREFERRED_SIDE, crop_borders: true },
  color: { on_existing: 'replace', preferred_side: COLOR_PREFERRED_SIDE, crop_borders: false },
  wine: { on_existing: 'refuse', preferred_side: WINE_PREFERRED_SIDE, crop_borders: true },
};
