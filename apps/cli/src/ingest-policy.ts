import { COLLECTION_SERVICES, CollectionServiceName, INGEST_POLICIES, IngestPayload } from '@loupe/jobs';

export { COLLECTION_SERVICES };
export type CollectionService = CollectionServiceName;

/** What the CLI's bulk add sends with each batch: the gateway's policy, and color's background options off (its update defaults). */
export const INGEST_POLICY: Record<CollectionService, Pick<IngestPayload, 'on_existing' | 'preferred_side' | 'crop_borders' | 'options'>> = {
  ...INGEST_POLICIES,
  color: { ...INGEST_POLICIES.color, options: { ignore_background: false, ignore_interior_background: false } },
};

export function readService(name: string): CollectionService {
  if (!(COLLECTION_SERVICES as readonly string[]).includes(name)) {
    throw new Error(`There is no collection service named "${name}" (${COLLECTION_SERVICES.join(', ')}).`);
  }
  return name as CollectionService;
}
