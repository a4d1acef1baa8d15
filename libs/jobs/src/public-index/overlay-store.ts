import type { BlobStore } from '@loupe/storage';
import { idHour, OVERLAY_ID, timeOrderedId } from '../match/overlay-store';

/** Public overlays by the hour they were made (see match/overlay-store.ts for why), and before that (UUIDv4 ids). */
export const PUBLIC_OVERLAY_HOUR_PREFIX = 'public-overlays-by-hour/';
export const LEGACY_PUBLIC_OVERLAY_PREFIX = 'public-overlays/';

/** Blob key of a public search overlay; null for anything that is not an overlay id (no path games). */
export function publicOverlayKey(id: string): string | null {
  if (!OVERLAY_ID.test(id)) return null;
  const hour = idHour(id);
  return hour === null ? `${LEGACY_PUBLIC_OVERLAY_PREFIX}${id}.jpg` : `${PUBLIC_OVERLAY_HOUR_PREFIX}${hour}/${id}.jpg`;
}

export async function storePublicOverlay(blobs: BlobStore, jpeg: Buffer): Promise<string> {
  const id = timeOrderedId();
  await blobs.put(publicOverlayKey(id)!, jpeg, 'image/jpeg');
  return id;
}
