import { randomUUID } from 'node:crypto';
import type { BlobStore } from '@loupe/storage';

const OVERLAY_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Blob key of a public search overlay; null for anything that is not an overlay id (no path games). */
export function publicOverlayKey(id: string): string | null {
  return OVERLAY_ID.test(id) ? `public-overlays/${id}.jpg` : null;
}

export async function storePublicOverlay(blobs: BlobStore, jpeg: Buffer): Promise<string> {
  const id = randomUUID();
  await blobs.put(publicOverlayKey(id)!, jpeg, 'image/jpeg');
  return id;
}
