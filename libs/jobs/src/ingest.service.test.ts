import { ImageInputError } from '@loupe/imaging';
import { photoLike, rawSharp } from '@loupe/imaging/src/testing/test-images';
import { BlobStore, CommitUnconfirmedError, Db, ImageRepository, ImageRow, migrate, MIGRATIONS, openBlobStore, openDatabase } from '@loupe/storage';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { stagingKey } from './blob-keys';
import { IngestItem, IngestPayload, unreadableUploadMessage } from './contracts';
import { IngestHook, IngestService } from './ingest.service';
import { openEmbeddedStore, type EmbeddedStore } from './testing/embedded-store';

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
  let store: EmbeddedStore;
  let db: Db;
  let blobs: BlobStore;
  let payload: IngestPayload;

  beforeEach(async () => {
    store = await openEmbeddedStore('ingest');
    ({ db, blobs } = store);
    const staged = stagingKey();
    const image = await sharp({ create: { width: 320, height: 240, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 60 } } }).jpeg().toBuffer();
    await blobs.put(staged, image);
    payload = {
      account_id: store.accountId,
      account: 'acme',
      service: 'mobile',
      items: [{ filepath: 'a.jpg', image_id: null, staged_key: staged }],
      on_existing: 'refuse',
      preferred_side: 320,
    };
  });
  afterEach(() => store.close());

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
    const { db, blobs, accountId, close } = await openEmbeddedStore('ingest');
    try {
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
        account_id: accountId,
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
      await close();
    }
  });
});

describe('an ingest whose COMMIT is cut off with the connection (CommitUnconfirmedError)', () => {
  let store: EmbeddedStore;
  let payload: IngestPayload;

  beforeEach(async () => {
    store = await openEmbeddedStore('ingest');
    const staged_key = stagingKey();
    await store.blobs.put(staged_key, await sharp({ create: { width: 320, height: 240, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 60 } } }).jpeg().toBuffer());
    payload = { account_id: store.accountId, account: 'acme', service: 'mobile', items: [{ filepath: 'a.jpg', image_id: null, staged_key }], on_existing: 'refuse', preferred_side: 320 };
  });
  afterEach(() => store.close());

  /** Images whose transactions end with a lost COMMIT, having committed or not; `failingReads` (1-based) of findByPaths fail. */
  function cutAtCommit(committed: boolean, failingReads: (read: number) => boolean): ImageRepository & { reads: number } {
    const images = Object.assign(new ImageRepository(store.db), { reads: 0 });
    images.transaction = async (fn) => {
      if (committed) await store.db.transaction(fn);
      throw new CommitUnconfirmedError(new Error('Client was closed and is not queryable'), new Error('Connection terminated unexpectedly'));
    };
    const findByPaths = images.findByPaths.bind(images);
    images.findByPaths = async (...args) => {
      if (failingReads(++images.reads)) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      return findByPaths(...args);
    };
    return images;
  }

  it('asks again once the database is back: a COMMIT that went through is answered as added, its blobs kept', async () => {
    // Read 1 is the planner's lookup of the path; read 2, the first after the cut COMMIT, finds the database still down.
    const images = cutAtCommit(true, (read) => read === 2);
    const result = await new IngestService(images, store.blobs).ingest(payload);
    expect(result).toMatchObject({ added: ['a.jpg'], errors: [] });
    const [row] = (await store.db.query<{ blob_key: string; norm_blob_key: string }>('SELECT blob_key, norm_blob_key FROM images')).rows;
    expect(await keysUnder(store.blobs, 'collections/')).toEqual([row.blob_key, row.norm_blob_key].sort());
  });

  it('fails as the outage it was when the COMMIT did not go through, leaving no blobs', async () => {
    await expect(new IngestService(cutAtCommit(false, () => false), store.blobs).ingest(payload)).rejects.toThrow(/^Connection terminated unexpectedly/);
    expect((await store.db.query('SELECT 1 FROM images')).rows).toEqual([]);
    expect(await keysUnder(store.blobs, 'collections/')).toEqual([]);
  });

  it('keeps the blobs when the database does not answer within the window: the row may point to them', async () => {
    const images = cutAtCommit(false, (read) => read >= 2);
    const windowMs = 300;
    await expect(new IngestService(images, store.blobs, () => [], undefined, undefined, windowMs).ingest(payload)).rejects.toThrow(CommitUnconfirmedError);
    expect(images.reads).toBeGreaterThan(2);
    expect(await keysUnder(store.blobs, 'collections/')).toHaveLength(2);
  });
});

describe('an add of a batch', () => {
  let dir: string;
  let db: Db;
  let blobs: BlobStore;
  let images: ImageRepository;
  let accountId: number;
  const photo = async (width: number, height: number, seed: number) => rawSharp(await photoLike(width, height, seed)).jpeg({ quality: 88 }).toBuffer();

  // One database for the block (migrating takes seconds), emptied before each test; a blob folder per test.
  beforeAll(async () => {
    db = await openDatabase({});
    await migrate(db, MIGRATIONS);
    images = new ImageRepository(db);
    accountId = (await db.query<{ id: number }>(`INSERT INTO accounts (name) VALUES ('acme') RETURNING id`)).rows[0].id;
  });
  afterAll(() => db.close());
  beforeEach(async () => {
    await db.query('DELETE FROM images');
    dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-ingest-batch-'));
    blobs = await openBlobStore({ dataDir: dir });
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Stages each upload as the gateway does; `data` null names an upload whose staged blob is gone. */
  async function payloadOf(entries: Array<{ filepath: string; data: Buffer | null; metadata?: Record<string, unknown> }>, onExisting: IngestPayload['on_existing'] = 'refuse'): Promise<IngestPayload> {
    const items: IngestItem[] = [];
    for (const { filepath, data, metadata } of entries) {
      const staged_key = stagingKey();
      if (data) await blobs.put(staged_key, data);
      items.push({ filepath, image_id: `id-${filepath}`, staged_key, metadata });
    }
    return { account_id: accountId, account: 'acme', service: 'mobile', items, on_existing: onExisting, preferred_side: 300 };
  }

  async function rowsInCommitOrder(): Promise<ImageRow[]> {
    return (await db.query<ImageRow>('SELECT * FROM images ORDER BY id')).rows;
  }

  it('commits each image in the batch order with its row, features and both blobs, and consumes the staged uploads', async () => {
    const files = [
      { filepath: 'shelf/wide.jpg', data: await photo(900, 600, 1), metadata: { shelf: 3 } },
      { filepath: 'shelf/tall.jpg', data: await photo(400, 700, 2) },
      { filepath: 'small.png', data: await rawSharp(await photoLike(240, 200, 3)).png().toBuffer() },
    ];
    const payload = await payloadOf(files);
    const result = await new IngestService(images, blobs).ingest(payload);

    expect(result.added).toEqual(files.map((f) => f.filepath));
    expect(result.errors).toEqual([]);
    expect(result.time_resize).toBeGreaterThan(0);
    expect(result.time_add).toBeGreaterThan(0);
    const rows = await rowsInCommitOrder();
    expect(rows.map((r) => r.filepath), 'row ids follow the batch order').toEqual(result.added);
    expect(rows.map((r) => [r.format, r.width, r.height, r.norm_width, r.norm_height])).toEqual([
      ['jpeg', 900, 600, 450, 300],
      ['jpeg', 400, 700, 300, 525],
      // Smaller than the preferred side: kept at its size.
      ['png', 240, 200, 240, 200],
    ]);
    expect(rows.map((r) => [r.image_id, r.metadata, r.ingest_token])).toEqual(payload.items.map((i, n) => [`id-${i.filepath}`, n === 0 ? { shelf: 3 } : {}, i.staged_key]));
    for (const [i, row] of rows.entries()) {
      expect(row.searchable, row.filepath).toBe(true);
      expect(row.fingerprint_health, row.filepath).toBeGreaterThan(0);
      expect((await images.features(row.id))?.length, `${row.filepath} has stored features`).toBeGreaterThan(0);
      expect(row.blob_key.startsWith('collections/acme/mobile/')).toBe(true);
      expect((await blobs.get(row.blob_key))?.equals(files[i].data), `${row.filepath}: the original is stored byte for byte`).toBe(true);
      const normalized = await sharp((await blobs.get(row.norm_blob_key))!).metadata();
      expect([normalized.format, normalized.width, normalized.height]).toEqual(['jpeg', row.norm_width, row.norm_height]);
    }
    expect(await keysUnder(blobs, 'collections/')).toEqual(rows.flatMap((r) => [r.blob_key, r.norm_blob_key]).sort());
    expect(await keysUnder(blobs, 'staging/')).toEqual([]);
  }, 30_000);

  it('refuses a path already in the collection when told to, keeping the stored image and writing nothing', async () => {
    await new IngestService(images, blobs).ingest(await payloadOf([{ filepath: 'a.jpg', data: await photo(600, 400, 1) }]));
    const [before] = await rowsInCommitOrder();
    const blobsBefore = await keysUnder(blobs, 'collections/');

    const again = await payloadOf([
      { filepath: 'a.jpg', data: await photo(500, 500, 2) },
      { filepath: 'b.jpg', data: await photo(500, 500, 3) },
    ]);
    const result = await new IngestService(images, blobs).ingest(again);
    expect(result.errors).toEqual(['a.jpg: This file already exists in the image collection.']);
    expect(result.added).toEqual(['b.jpg']);
    const rows = await rowsInCommitOrder();
    expect(rows[0]).toEqual(before);
    expect(rows.map((r) => r.filepath)).toEqual(['a.jpg', 'b.jpg']);
    expect(await keysUnder(blobs, 'collections/')).toEqual([...blobsBefore, rows[1].blob_key, rows[1].norm_blob_key].sort());
    expect(await keysUnder(blobs, 'staging/')).toEqual([]);
  }, 30_000);

  it('replaces a path already in the collection when told to: the new image, its blobs only', async () => {
    await new IngestService(images, blobs).ingest(await payloadOf([{ filepath: 'a.jpg', data: await photo(600, 400, 1) }], 'replace'));
    const [before] = await rowsInCommitOrder();

    const replacement = await photo(500, 800, 2);
    const result = await new IngestService(images, blobs).ingest(await payloadOf([{ filepath: 'a.jpg', data: replacement }], 'replace'));
    expect(result).toMatchObject({ added: ['a.jpg'], errors: [] });
    const rows = await rowsInCommitOrder();
    expect(rows).toHaveLength(1);
    expect(rows[0].id).not.toBe(before.id);
    expect([rows[0].width, rows[0].height]).toEqual([500, 800]);
    expect(rows[0].blob_key).not.toBe(before.blob_key);
    expect((await blobs.get(rows[0].blob_key))?.equals(replacement)).toBe(true);
    expect(await keysUnder(blobs, 'collections/'), 'the replaced image’s blobs are gone').toEqual([rows[0].blob_key, rows[0].norm_blob_key].sort());
    expect(await keysUnder(blobs, 'staging/')).toEqual([]);
  }, 30_000);

  it('answers a path repeated within one batch as existing, keeping its first image', async () => {
    const first = await photo(600, 400, 1);
    const result = await new IngestService(images, blobs).ingest(
      await payloadOf([
        { filepath: 'a.jpg', data: first },
        { filepath: 'a.jpg', data: await photo(600, 400, 2) },
      ], 'replace'),
    );
    expect(result.added).toEqual(['a.jpg']);
    expect(result.errors).toEqual(['a.jpg: This file already exists in the image collection.']);
    const rows = await rowsInCommitOrder();
    expect(rows).toHaveLength(1);
    expect((await blobs.get(rows[0].blob_key))?.equals(first)).toBe(true);
    expect(await keysUnder(blobs, 'staging/')).toEqual([]);
  }, 30_000);

  it('refuses unusable uploads each with its reason while the other images of the batch are added', async () => {
    const good = await photo(600, 400, 1);
    const payload = await payloadOf([
      { filepath: 'truncated.jpg', data: good.subarray(0, 400) },
      { filepath: 'first.jpg', data: good },
      { filepath: 'notes.txt', data: Buffer.from('not an image, just a few words of text\n') },
      { filepath: 'empty.jpg', data: Buffer.alloc(0) },
      { filepath: 'vanished.jpg', data: null },
      { filepath: 'second.jpg', data: await photo(400, 600, 2) },
    ]);
    const result = await new IngestService(images, blobs).ingest(payload);
    expect(result.added).toEqual(['first.jpg', 'second.jpg']);
    expect(result.errors).toEqual([
      'truncated.jpg: The image data is corrupt or truncated.',
      'notes.txt: Unsupported image format; accepted formats are JPEG, PNG, WEBP, AVIF, GIF, BMP, TIFF.',
      'empty.jpg: The image file is empty.',
      unreadableUploadMessage('vanished.jpg'),
    ]);
    const rows = await rowsInCommitOrder();
    expect(rows.map((r) => r.filepath)).toEqual(['first.jpg', 'second.jpg']);
    expect(await keysUnder(blobs, 'collections/'), 'no blob of a refused upload').toEqual(rows.flatMap((r) => [r.blob_key, r.norm_blob_key]).sort());
    expect(await keysUnder(blobs, 'staging/')).toEqual([]);
  }, 30_000);

  it('commits a hook’s data with its image, and refuses an image a hook finds unusable without failing the batch', async () => {
    const persisted: Array<{ imagePk: number; analysis: string }> = [];
    const hook: IngestHook<string> = {
      stat: 'time_label',
      analyze: async ({ item, normalized }) => {
        if (item.filepath === 'unreadable-label.jpg') throw new ImageInputError('corrupt', 'No label could be read.');
        return `${item.filepath} at ${normalized.width}x${normalized.height}`;
      },
      persist: async (tx, imagePk, analysis) => {
        // Inside the add's transaction: the row it belongs to is already there.
        const { rows } = await tx.query<{ filepath: string }>('SELECT filepath FROM images WHERE id = $1', [imagePk]);
        expect(analysis.startsWith(rows[0].filepath)).toBe(true);
        persisted.push({ imagePk, analysis });
      },
    };
    const result = await new IngestService(images, blobs, (service) => (service === 'mobile' ? [hook] : [])).ingest(
      await payloadOf([
        { filepath: 'label.jpg', data: await photo(600, 400, 1) },
        { filepath: 'unreadable-label.jpg', data: await photo(600, 400, 2) },
      ]),
    );
    expect(result.added).toEqual(['label.jpg']);
    expect(result.errors).toEqual(['unreadable-label.jpg: No label could be read.']);
    expect(Object.keys(result.stage_times)).toEqual(['time_label']);
    const rows = await rowsInCommitOrder();
    expect(persisted).toEqual([{ imagePk: rows[0].id, analysis: 'label.jpg at 450x300' }]);
    expect(await keysUnder(blobs, 'collections/')).toHaveLength(2);
    expect(await keysUnder(blobs, 'staging/')).toEqual([]);
  }, 30_000);
});
