import { BlobStore, Db, migrate, MIGRATIONS, openBlobStore, openDatabase, PublicApiRepository } from '@loupe/storage';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hourOf, idHour, overlayKey, timeOrderedId } from '../match/overlay-store';
import { ExpirySweeper } from './expiry-sweeper';
import { publicOverlayKey } from './overlay-store';

const HOUR = 3_600_000;
const T = Date.UTC(2026, 10, 22, 12, 30);

describe('overlay ids and keys', () => {
  it('carry the hour they were made, and keep legacy (UUIDv4) overlays at their old keys', () => {
    const id = timeOrderedId(T);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(idHour(id)).toBe(hourOf(T));
    expect(new Set(Array.from({ length: 50 }, () => timeOrderedId(T))).size).toBe(50);
    expect(overlayKey('acme', 'match', id)).toBe(`overlays-by-hour/${hourOf(T)}/acme/match/${id}.jpg`);
    expect(publicOverlayKey(id)).toBe(`public-overlays-by-hour/${hourOf(T)}/${id}.jpg`);
    const legacy = randomUUID();
    expect(overlayKey('acme', 'match', legacy)).toBe(`overlays/acme/match/${legacy}.jpg`);
    expect(publicOverlayKey(legacy)).toBe(`public-overlays/${legacy}.jpg`);
    expect(publicOverlayKey('../x')).toBeNull();
  });
});

describe('the expiry sweeper', () => {
  let db: Db;
  let dir: string;
  let blobs: BlobStore;
  let repo: PublicApiRepository;

  beforeAll(async () => {
    db = await openDatabase({});
    await migrate(db, MIGRATIONS);
    repo = new PublicApiRepository(db);
  });
  afterAll(() => db.close());
  beforeEach(async () => {
    await db.query('DELETE FROM maintenance_cursors');
    dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-sweep-'));
    blobs = await openBlobStore({ dataDir: dir });
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const put = async (key: string) => (await blobs.put(key, Buffer.from('jpeg')), key);
  const collectionOverlay = (madeAt: number) => put(overlayKey('acme', 'match', timeOrderedId(madeAt))!);
  const publicOverlay = (madeAt: number) => put(publicOverlayKey(timeOrderedId(madeAt))!);
  const present = async (keys: string[]) => Promise.all(keys.map((k) => blobs.exists(k)));

  it('deletes overlays past the TTL to the hour, continues from its cursor, and drops legacy overlays one TTL after its first sweep', async () => {
    const sweeper = new ExpirySweeper(repo, blobs, { overlayTtlHours: 24, firstSweepLookbackHours: 48 });
    const old = await collectionOverlay(T - 30 * HOUR);
    const recent = await collectionOverlay(T - 10 * HOUR);
    const publicRecent = await publicOverlay(T - 3 * HOUR);
    const legacy = [await put(overlayKey('acme', 'match', randomUUID())!), await put(publicOverlayKey(randomUUID())!)];

    const first = await sweeper.sweepOnce(T);
    expect(await present([old, recent, publicRecent, ...legacy])).toEqual([false, true, true, true, true]);
    expect(first.overlays).toBe(1);
    expect(await repo.cursor('overlays-by-hour/')).toBe(hourOf(T - 24 * HOUR));

    // Nothing new expired: the cursor stops the sweep from revisiting any hour.
    const again = await sweeper.sweepOnce(T + 60_000);
    expect(again).toMatchObject({ overlays: 0, overlayHours: 0, legacyOverlays: 0 });

    const later = T + 25 * HOUR;
    const fresh = await collectionOverlay(later - HOUR);
    const second = await sweeper.sweepOnce(later);
    expect(await present([recent, publicRecent, fresh, ...legacy])).toEqual([false, false, true, false, false]);
    expect(second).toMatchObject({ overlays: 2, legacyOverlays: 2 });
  });

  it('keeps public overlays at least two hours (their links work for one), whatever the TTL', async () => {
    const sweeper = new ExpirySweeper(repo, blobs, { overlayTtlHours: 0, firstSweepLookbackHours: 48 });
    const linkStillValid = await publicOverlay(T - 1.5 * HOUR);
    const expired = await publicOverlay(T - 3.5 * HOUR);
    const collection = await collectionOverlay(T - 1.5 * HOUR);
    await sweeper.sweepOnce(T);
    expect(await present([linkStillValid, expired, collection])).toEqual([true, false, false]);
  });

  it('deletes expired nonces and idle rate buckets, and nothing still in use', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect(await repo.claimNonce('pub', 'expired-nonce', now - 60)).toBe(true);
    expect(await repo.claimNonce('pub', 'live-nonce', now + 900)).toBe(true);
    await repo.takeRateToken('search:idle', 30);
    await repo.takeRateToken('search:busy', 30);
    await db.query(`UPDATE api_rate_buckets SET updated_at = now() - interval '2 hours' WHERE bucket = 'search:idle'`);

    const report = await new ExpirySweeper(repo, blobs, { overlayTtlHours: 24, firstSweepLookbackHours: 48 }).sweepOnce();
    expect(report).toMatchObject({ nonces: 1, rateBuckets: 1 });
    const { rows: nonces } = await db.query<{ nonce: string }>('SELECT nonce FROM api_nonces');
    expect(nonces.map((r) => r.nonce)).toEqual(['live-nonce']);
    const { rows: buckets } = await db.query<{ bucket: string }>('SELECT bucket FROM api_rate_buckets');
    expect(buckets.map((r) => r.bucket)).toEqual(['search:busy']);
    // The live nonce is still refused as a replay.
    expect(await repo.claimNonce('pub', 'live-nonce', now + 900)).toBe(false);
  });
});
