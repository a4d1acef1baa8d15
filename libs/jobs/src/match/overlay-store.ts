import { randomBytes } from 'node:crypto';
import type { BlobStore } from '@loupe/storage';
import { HOUR_MS } from '../durations';

/** Overlay ids are UUIDs: unguessable, and the account is part of the key so one account cannot read another's. */
export const OVERLAY_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Overlays expire (OVERLAY_TTL_HOURS; the sweeper in public-index/expiry-sweeper.ts deletes them). Blob stores
 * cannot list by age cheaply, so an overlay's key starts with the hour it was made, under this prefix: expiring an
 * hour is one deletePrefix. The hour is read back from the id, a UUIDv7 (48-bit millisecond timestamp, 74 random
 * bits: still unguessable), so links need not change.
 */
export const OVERLAY_HOUR_PREFIX = 'overlays-by-hour/';
/** Keys of overlays made before ids carried their time (random UUIDv4): kept readable until the sweeper drops them. */
export const LEGACY_OVERLAY_PREFIX = 'overlays/';

/** A UUIDv7 (RFC 9562): the creation time in its first 48 bits. */
export function timeOrderedId(now = Date.now()): string {
  const b = randomBytes(16);
  b.writeUIntBE(now, 0, 6);
  b[6] = (b[6] & 0x0f) | 0x70;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Hours since the epoch at which a time-ordered id was made; null for any other id (a legacy UUIDv4). */
export function idHour(id: string): number | null {
  if (id[14] !== '7') return null;
  return Math.floor(parseInt(id.slice(0, 8) + id.slice(9, 13), 16) / HOUR_MS);
}

export function hourOf(ms: number): number {
  return Math.floor(ms / HOUR_MS);
}

export function overlayKey(account: string, service: string, id: string): string | null {
  if (!OVERLAY_ID.test(id)) return null;
  const hour = idHour(id);
  return hour === null ? `${LEGACY_OVERLAY_PREFIX}${account}/${service}/${id}.jpg` : `${OVERLAY_HOUR_PREFIX}${hour}/${account}/${service}/${id}.jpg`;
}

/** Stores a rendered overlay and returns its relative URL (relative to `{base}/<account>/rest/`). */
export async function storeOverlay(blobs: BlobStore, account: string, service: string, jpeg: Buffer): Promise<string> {
  const id = timeOrderedId();
  await blobs.put(overlayKey(account, service, id)!, jpeg, 'image/jpeg');
  return `overlay/${id}.jpg`;
}
