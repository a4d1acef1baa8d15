import { syntheticImage } from '@loupe/fingerprint/src/testing/synthetic-images';
import { rawSharp } from '@loupe/imaging/src/testing/test-images';
import { AccountRepository, BlobStore, ImageRepository, openBlobStore, PublicApiRepository } from '@loupe/storage';
import { TEST_DATABASES, unavailable, useMigratedDatabase } from '@loupe/storage/src/repositories/test-databases';
import { startS3Server } from '@loupe/storage/src/testing';
import { utimes } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectionBlobPrefix, stagingKey } from './blob-keys';
import { IngestService } from './ingest.service';
import { MATCHING_PREFERRED_SIDE } from './ingest-policy';
import { MIN_ORPHAN_AGE_HOURS, OrphanBlobSweeper } from './orphan-blob-sweeper';
import { openEmbeddedStore, type EmbeddedStore } from './testing/embedded-store';

const HOUR = 3_600_000;

/** Adds `filepaths` to account `acme`'s mobile collection as the ingest job does (blobs first, then one committed row each). */
async function add(images: ImageRepository, blobs: BlobStore, accountId: number, filepaths: string[]): Promise<void> {
  const items = [];
  for (const [i, filepath] of filepaths.entries()) {
    const staged_key = stagingKey();
    await blobs.put(staged_key, await rawSharp(await syntheticImage(10 + i)).jpeg().toBuffer());
    items.push({ filepath, image_id: null, staged_key });
  }
  const result = await new IngestService(images, blobs).ingest({
    account_id: accountId, account: 'acme', service: 'mobile', items, on_existing: 'refuse', preferred_side: MATCHING_PREFERRED_SIDE, crop_borders: true,
  });
  expect(result.errors).toEqual([]);
}

describe('the orphan blob sweeper, on what ingest and delete leave in the embedded store', () => {
  let store: EmbeddedStore;
  let blobs: BlobStore;
  let images: ImageRepository;
  let sweeper: OrphanBlobSweeper;
  const ref = () => ({ accountId: store.accountId, service: 'mobile' });

  /** Every blob key below `collections/`. */
  async function collectionKeys(): Promise<string[]> {
    const keys: string[] = [];
    for await (const blob of blobs.list('collections/')) keys.push(blob.key);
    return keys.sort();
  }

  /** Sets a blob's modification time `hoursAgo` hours back (the folder store reads it from the file). */
  async function age(key: string, hoursAgo: number): Promise<void> {
    const when = new Date(Date.now() - hoursAgo * HOUR);
    await utimes(path.join(store.dir, 'blobs', ...key.split('/')), when, when);
  }

  beforeAll(async () => {
    store = await openEmbeddedStore('orphan-sweep');
    blobs = store.blobs;
    images = new ImageRepository(store.db);
    sweeper = new OrphanBlobSweeper(blobs, new AccountRepository(store.db), images, new PublicApiRepository(store.db), { everyHours: 24 });
    await add(images, blobs, store.accountId, ['kept/a.jpg', 'kept/b.jpg', 'deleted/c.jpg']);
  }, 60_000);
  afterAll(() => store?.close());

  it('deletes old blobs no row points to (a crash before the commit, after a row delete, in a removed account) and keeps every image whole', async () => {
    const stored = await collectionKeys();
    expect(stored).toHaveLength(6);
    // A row deleted by a process that died before it deleted the row's blobs.
    const [deletedRow] = await images.deleteByPaths(ref(), ['deleted/c.jpg']);
    // Blobs of an ingest whose process died before its commit, one long ago and one just now.
    const crashed = `${collectionBlobPrefix('acme', 'mobile', 'crashed.jpg', stagingKey())}/original`;
    const inFlight = `${collectionBlobPrefix('acme', 'mobile', 'in-flight.jpg', stagingKey())}/original`;
    // Blobs of an account whose removal stopped after its rows went.
    const removedAccount = `${collectionBlobPrefix('gone', 'color', 'x.jpg', stagingKey())}/normalized`;
    for (const key of [crashed, inFlight, removedAccount]) await blobs.put(key, Buffer.from(key));
    for (const key of [...stored, crashed, removedAccount]) await age(key, MIN_ORPHAN_AGE_HOURS + 1);

    const report = await sweeper.sweepOnce();
    expect(report).toEqual({ deleted: 4, referenced: 4, young: 1, skipped: false });
    const left = await collectionKeys();
    expect(left).toEqual([...stored.filter((key) => key !== deletedRow.blob_key && key !== deletedRow.norm_blob_key), inFlight].sort());
    for (const filepath of ['kept/a.jpg', 'kept/b.jpg']) {
      const row = (await images.findByPaths(ref(), [filepath])).get(filepath)!;
      expect(await blobs.exists(row.blob_key)).toBe(true);
      expect(await blobs.exists(row.norm_blob_key)).toBe(true);
    }

    // Swept once per interval per database: a second process's tick within the day only reads the cursor.
    await age(inFlight, MIN_ORPHAN_AGE_HOURS + 1);
    expect(await sweeper.sweepOnce()).toMatchObject({ skipped: true, deleted: 0 });
    expect(await sweeper.sweepOnce(Date.now() + 25 * HOUR)).toEqual({ deleted: 1, referenced: 4, young: 0, skipped: false });
    expect(await collectionKeys()).toHaveLength(4);
  });

  it('never deletes a blob younger than the longest a job may wait before it commits', async () => {
    const justWritten = `${collectionBlobPrefix('acme', 'mobile', 'slow.jpg', stagingKey())}/original`;
    await blobs.put(justWritten, Buffer.from('an ingest about to commit'));
    await age(justWritten, MIN_ORPHAN_AGE_HOURS - 0.5);
    expect(await sweeper.sweepOnce(Date.now(), true)).toMatchObject({ deleted: 0, young: 1 });
    expect(await blobs.exists(justWritten)).toBe(true);
  });
});

describe.each(TEST_DATABASES)('the orphan blob sweeper on S3, rows in %s', (label, url) => {
  const database = useMigratedDatabase(label, url);
  let server: Awaited<ReturnType<typeof startS3Server>>;
  beforeAll(async () => {
    server = await startS3Server();
  });
  afterAll(() => server?.close());

  it.skipIf(unavailable(label, url))('lists the bucket and deletes what no row points to, in any collection, once old', async () => {
    const db = database();
    const blobs = await openBlobStore({ ...server, bucket: 'orphan-sweep' });
    const images = new ImageRepository(db);
    const account = await new AccountRepository(db).ensure('acme');
    await add(images, blobs, account.id, ['a.jpg', 'b.jpg']);
    const orphans = [`${collectionBlobPrefix('acme', 'mobile', 'crashed.jpg', stagingKey())}/original`, `${collectionBlobPrefix('acme', 'color', 'gone.jpg', stagingKey())}/normalized`];
    for (const key of orphans) await blobs.put(key, Buffer.from(key));
    const sweeper = new OrphanBlobSweeper(blobs, new AccountRepository(db), images, new PublicApiRepository(db), { everyHours: 24 });
    // S3 keeps its own modification times, so the sweep's clock is moved instead.
    expect(await sweeper.sweepOnce(Date.now() + 24 * HOUR)).toEqual({ deleted: 0, referenced: 0, young: 6, skipped: false });
    expect(await sweeper.sweepOnce(Date.now() + 26 * HOUR, true)).toEqual({ deleted: 2, referenced: 4, young: 0, skipped: false });
    for (const key of orphans) expect(await blobs.exists(key)).toBe(false);
    for (const row of (await images.findByPaths({ accountId: account.id, service: 'mobile' }, ['a.jpg', 'b.jpg'])).values()) {
      expect(await blobs.exists(row.blob_key)).toBe(true);
      expect(await blobs.exists(row.norm_blob_key)).toBe(true);
    }
  }, 60_000);
});
