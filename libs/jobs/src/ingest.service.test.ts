import { BlobStore, Db, ImageRepository, migrate, MIGRATIONS, openBlobStore, openDatabase } from '@loupe/storage';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stagingKey } from './blob-keys';
import { IngestPayload } from './contracts';
import { IngestService } from './ingest.service';

/** The blob store of a process that is killed: what it wrote stays, and no cleanup it would have run happens. */
function dyingStore(blobs: BlobStore): BlobStore {
  return { ...blobs, delete: async () => undefined, deletePrefix: async () => 0 };
}

/** The database of a process killed before its commit: every transaction dies without reaching COMMIT. */
function dyingImages(db: Db): ImageRepository {
  const images = new ImageRepository(db);
  images.transaction = async () => {
    throw new Error('killed before COMMIT');
  };
  return images;
}

async function keysUnder(blobs: BlobStore, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const blob of blobs.list(prefix)) keys.push(blob.key);
  return keys.sort();
}

describe('an ingest job retried after its worker died between writing the blobs and committing', () => {
  let dir: string;
  let db: Db;
  let blobs: BlobStore;
  let payload: IngestPayload;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-ingest-'));
    db = await openDatabase({});
    await migrate(db, MIGRATIONS);
    blobs = await openBlobStore({ dataDir: dir });
    const { rows } = await db.query<{ id: number }>(`INSERT INTO accounts (name) VALUES ('acme') RETURNING id`);
    const staged = stagingKey();
    const image = await sharp({ create: { width: 320, height: 240, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 60 } } }).jpeg().toBuffer();
    await blobs.put(staged, image);
    payload = {
      account_id: rows[0].id,
      account: 'acme',
      service: 'mobile',
      items: [{ filepath: 'a.jpg', image_id: null, staged_key: staged }],
      on_existing: 'refuse',
      preferred_side: 320,
    };
  });
  afterEach(async () => {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('leaves exactly the blobs its row points to', async () => {
    await expect(new IngestService(dyingImages(db), dyingStore(blobs)).ingest(payload)).rejects.toThrow('killed before COMMIT');
    expect(await keysUnder(blobs, 'collections/'), 'the dead run wrote both blobs').toHaveLength(2);

    const result = await new IngestService(new ImageRepository(db), blobs).ingest(payload);
    expect(result.added).toEqual(['a.jpg']);
    const { rows } = await db.query<{ blob_key: string; norm_blob_key: string }>('SELECT blob_key, norm_blob_key FROM images');
    expect(await keysUnder(blobs, 'collections/')).toEqual([rows[0].blob_key, rows[0].norm_blob_key].sort());
  });

  it('removes them when the path was taken meanwhile by another upload', async () => {
    await expect(new IngestService(dyingImages(db), dyingStore(blobs)).ingest(payload)).rejects.toThrow('killed before COMMIT');
    const other = { ...payload, items: [{ ...payload.items[0], staged_key: stagingKey() }] };
    await blobs.put(other.items[0].staged_key, (await blobs.get(payload.items[0].staged_key))!);
    expect((await new IngestService(new ImageRepository(db), blobs).ingest(other)).added).toEqual(['a.jpg']);

    const result = await new IngestService(new ImageRepository(db), blobs).ingest(payload);
    expect(result.errors).toEqual(['a.jpg: This file already exists in the image collection.']);
    const { rows } = await db.query<{ blob_key: string; norm_blob_key: string }>('SELECT blob_key, norm_blob_key FROM images');
    expect(await keysUnder(blobs, 'collections/')).toEqual([rows[0].blob_key, rows[0].norm_blob_key].sort());
  });

  it('a second run of the same job that loses the race to commit keeps the winner’s blobs', async () => {
    // Two runs of one job (a restarted job whose first worker is still alive): both write the same keys; the one
    // whose insert collides must not delete what the committed row points to.
    const images = new ImageRepository(db);
    const loser = new ImageRepository(db);
    // The loser looked before the winner committed: it saw no row.
    let looked = false;
    loser.findByPaths = async (...args) => (looked ? images.findByPaths(...args) : ((looked = true), new Map()));
    loser.transaction = async (fn) => {
      await new IngestService(images, blobs).ingest(payload);
      return db.transaction(fn);
    };
    const result = await new IngestService(loser, blobs).ingest(payload);
    expect(result.added).toEqual(['a.jpg']);
    const { rows } = await db.query<{ blob_key: string; norm_blob_key: string }>('SELECT blob_key, norm_blob_key FROM images');
    expect(rows).toHaveLength(1);
    expect(await keysUnder(blobs, 'collections/')).toEqual([rows[0].blob_key, rows[0].norm_blob_key].sort());
  });
});

describe('an ingest whose database goes away in the middle of a batch', () => {
  it('answers which images are in and which failed, instead of failing the whole call', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-ingest-'));
    const db = await openDatabase({});
    try {
      await migrate(db, MIGRATIONS);
      const blobs = await openBlobStore({ dataDir: dir });
      const { rows } = await db.query<{ id: number }>(`INSERT INTO accounts (name) VALUES ('acme') RETURNING id`);
      const image = await sharp({ create: { width: 320, height: 240, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 60 } } }).jpeg().toBuffer();
      const items = [];
      for (const filepath of ['a.jpg', 'b.jpg']) {
        const staged_key = stagingKey();
        await blobs.put(staged_key, image);
        items.push({ filepath, image_id: null, staged_key });
      }
      const images = new ImageRepository(db);
      let commits = 0;
      images.transaction = async (fn) => {
        if (++commits > 1) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
        return db.transaction(fn);
      };
      const result = await new IngestService(images, blobs).ingest({
        account_id: rows[0].id,
        account: 'acme',
        service: 'mobile',
        items,
        on_existing: 'refuse',
        preferred_side: 320,
      });
      expect(result.added).toEqual(['a.jpg']);
      expect(result.errors).toEqual(['b.jpg: The image could not be stored because of a server error; please send it again.']);
      const { rows: stored } = await db.query<{ filepath: string }>('SELECT filepath FROM images');
      expect(stored.map((r) => r.filepath)).toEqual(['a.jpg']);
      // b's blobs went with its failed transaction; only a's remain.
      expect(await keysUnder(blobs, 'collections/')).toHaveLength(2);
    } finally {
      await db.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
