import { randomUUID } from 'node:crypto';
import type { BlobStore } from '@loupe/storage';

/** Overlay ids are random UUIDs: unguessable, and the account is part of the key so one account cannot read another's. */
const OVERLAY_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function overlayKey(account: string, service: string, id: string): string | null {
  return OVERLAY_ID.test(id) ? `overlays/${account}/${service}/${id}.jpg` : null;
}

/** Stores a rendered overlay and returns its relative URL (relative to `{base}/<account>/rest/`). */
export async function storeOverlay(blobs: BlobStore, account: string, service: string, jpeg: Buffer): Promise<string> {
  const id = randomUUID();
  await blobs.put(overlayKey(account, service, id)!, jpeg, 'image/jpeg');
  return `overlay/${id}.jpg`;
}
