import { ThreadPool } from '@loupe/fingerprint';
import { addBorder, flatColor, photoLike, rawSharp } from '@loupe/imaging/src/testing/test-images';
import { BlobStore, Db, ImageRepository, MatchIndexRepository } from '@loupe/storage';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { stagingKey } from './blob-keys';
import { storedPaletteTask } from './color-palettes';
import type { Compute } from './compute';
import type { IngestPayload } from './contracts';
import { Preparation, prepareImage, prepareImageTask } from './image-preparation';
import { IngestService } from './ingest.service';
import { SearchIndexHook, searchIndexEntryTask } from './match/search-index.hook';
import { matchVocabulary } from './match/vocabulary';
import { openEmbeddedStore, type EmbeddedStore } from './testing/embedded-store';

/** The kinds of file an add meets: photos of several sizes, a framed one (border crop), a flat one, a broken one. */
async function sampleFiles(): Promise<Array<{ name: string; data: Buffer }>> {
  const photo = (w: number, h: number, seed: number) => photoLike(w, h, seed).then((img) => rawSharp(img).jpeg({ quality: 88 }).toBuffer());
  return [
    { name: 'landscape.jpg', data: await photo(1200, 800, 1) },
    { name: 'portrait.png', data: await photoLike(500, 900, 2).then((img) => rawSharp(img).png().toBuffer()) },
    { name: 'framed.jpg', data: await photoLike(640, 480, 3).then((img) => rawSharp(addBorder(img, 40, [250, 250, 250])).jpeg({ quality: 90 }).toBuffer()) },
    { name: 'small.webp', data: await photoLike(200, 150, 4).then((img) => rawSharp(img).webp().toBuffer()) },
    { name: 'flat.jpg', data: await rawSharp(flatColor(400, 300, [30, 90, 160], 6)).jpeg().toBuffer() },
    { name: 'broken.jpg', data: (await photo(300, 200, 5)).subarray(0, 400) },
  ];
}

/** A preparation made comparable: typed arrays as plain bytes, timings left out (they differ run to run). */
function comparable(preparation: Preparation) {
  if ('refused' in preparation) return preparation;
  const { normalized, gray, features, normalizedJpeg, assessment } = preparation.image;
  return {
    normalized: { ...normalized, data: Buffer.from(normalized.data).toString('base64') },
    gray: { ...gray, data: Buffer.from(gray.data).toString('base64') },
    jpeg: Buffer.from(normalizedJpeg).toString('base64'),
    features: features && [features.xy, features.meta, features.descriptors].map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64')),
    assessment,
  };
}

describe('ingest work on compute threads', () => {
  const pool = new ThreadPool(2);
  let files: Array<{ name: string; data: Buffer }>;
  beforeAll(async () => {
    files = await sampleFiles();
  }, 60_000);
  afterAll(() => pool.close());

  it('prepares every kind of file exactly as the calling thread does', async () => {
    for (const cropBorders of [true, false]) {
      for (const { name, data } of files) {
        const request = { data, preferredSide: 600, cropBorders };
        const [pooled, local] = await Promise.all([pool.run(prepareImageTask, request), prepareImage(request)]);
        expect(comparable(pooled), `${name}, borders cropped: ${cropBorders}`).toEqual(comparable(local));
      }
    }
    const framed = await prepareImage({ data: files[2].data, preferredSide: 600, cropBorders: true });
    expect('image' in framed && framed.image.normalized.width, 'the 40 px frame is cropped').toBe(640);
    expect(await prepareImage({ data: files[5].data, preferredSide: 600, cropBorders: true })).toHaveProperty('refused');
  }, 120_000);

  it('gives the hooks the same visual words, hash and palette on a thread', async () => {
    const prepared = await prepareImage({ data: files[0].data, preferredSide: 600, cropBorders: true });
    if (!('image' in prepared) || !prepared.image.features) throw new Error('the photo should have features');
    const { features, gray, normalized } = prepared.image;
    const entry = { features, gray };
    expect(await pool.run(searchIndexEntryTask, entry)).toEqual(searchIndexEntryTask.run(entry));
    const palette = { image: { data: normalized.data, width: normalized.width, height: normalized.height }, options: { ignoreBackground: true } };
    expect(await pool.run(storedPaletteTask, palette)).toEqual(storedPaletteTask.run(palette));
  }, 60_000);
});

describe('a batch prepared concurrently', () => {
  const pool = new ThreadPool(2);
  const compute: Pick<Compute, 'run' | 'parallelism'> = { run: pool.runner, parallelism: 2 };
  let store: EmbeddedStore;
  let db: Db;
  let blobs: BlobStore;
  let accountId: number;
  let files: Array<{ name: string; data: Buffer }>;

  beforeAll(async () => {
    files = await sampleFiles();
  }, 60_000);
  afterAll(() => pool.close());
  beforeEach(async () => {
    store = await openEmbeddedStore('ingest-threads');
    ({ db, blobs, accountId } = store);
  });
  afterEach(async () => {
    await store?.close();
  });

  async function payloadOf(entries: Array<{ filepath: string; data: Buffer }>): Promise<IngestPayload> {
    const items = [];
    for (const { filepath, data } of entries) {
      const staged_key = stagingKey();
      await blobs.put(staged_key, data);
      items.push({ filepath, image_id: null, staged_key });
    }
    return { account_id: accountId, account: 'acme', service: 'mobile', items, on_existing: 'refuse', preferred_side: 600, crop_borders: true };
  }

  /** What the collection holds, in commit (id) order: rows, features and visual words as the repositories read them. */
  async function storedRows() {
    const matchIndex = new MatchIndexRepository(db);
    const { rows } = await db.query<{ id: number; filepath: string }>(
      `SELECT id, filepath, norm_width, norm_height, fingerprint_health, searchable, unsearchable_reason FROM images ORDER BY id`,
    );
    const features = await matchIndex.features(rows.map((r) => r.id));
    const indexed = await matchIndex.indexedImages({ accountId, service: 'mobile' }, matchVocabulary().id);
    return rows.map(({ id, ...row }) => {
      const entry = indexed.find((i) => i.image_pk === id);
      return { ...row, features: features.get(id)?.toString('base64'), words: entry?.words.toString('base64'), hash: entry?.global_hash, colours: entry?.colour_set };
    });
  }

  it('answers and commits in the batch order, with what one-after-another ingest stores', async () => {
    const images = new ImageRepository(db);
    const hooks = () => [new SearchIndexHook(new MatchIndexRepository(db), pool.runner)];
    // 'landscape.jpg' twice: the second is a repeated path of the batch.
    const entries = [...files, files[0]].map((f) => ({ filepath: f.name, data: f.data }));
    const result = await new IngestService(images, blobs, hooks, compute).ingest(await payloadOf(entries));
    expect(result.added).toEqual(['landscape.jpg', 'portrait.png', 'framed.jpg', 'small.webp', 'flat.jpg']);
    expect(result.errors).toEqual([
      expect.stringMatching(/^broken\.jpg: /),
      'landscape.jpg: This file already exists in the image collection.',
    ]);
    const pooledRows = await storedRows();
    expect(pooledRows.map((r) => r.filepath), 'row ids follow the batch order').toEqual(result.added);
    expect(await keysUnder(blobs, 'staging/'), 'every staged upload is consumed').toEqual([]);
    expect(await keysUnder(blobs, 'collections/')).toHaveLength(2 * result.added.length);

    await db.query('DELETE FROM images');
    const sequential = await new IngestService(images, blobs, () => [new SearchIndexHook(new MatchIndexRepository(db))]).ingest(await payloadOf(entries));
    expect(sequential.added).toEqual(result.added);
    expect(await storedRows()).toEqual(pooledRows);
  }, 120_000);

  it('commits two calls of one account one after the other, in call order, while both prepare', async () => {
    const service = new IngestService(new ImageRepository(db), blobs, () => [], compute);
    const first = await payloadOf(files.slice(0, 3).map((f) => ({ filepath: `first/${f.name}`, data: f.data })));
    const second = await payloadOf(files.slice(0, 3).map((f) => ({ filepath: `second/${f.name}`, data: f.data })));
    const [a, b] = await Promise.all([service.ingest(first), service.ingest(second)]);
    expect([...a.added, ...b.added]).toEqual((await storedRows()).map((r) => r.filepath));
    expect(b.added).toHaveLength(3);
  }, 120_000);

  it('fails the whole call when its first commit fails, leaving later uploads staged for the retry and no stored blobs', async () => {
    const images = new ImageRepository(db);
    images.transaction = async () => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    };
    const payload = await payloadOf(files.slice(0, 4).map((f) => ({ filepath: f.name, data: f.data })));
    await expect(new IngestService(images, blobs, () => [], compute).ingest(payload)).rejects.toThrow('ECONNREFUSED');
    expect(await keysUnder(blobs, 'collections/')).toEqual([]);
    expect(await keysUnder(blobs, 'staging/')).toEqual(payload.items.slice(1).map((i) => i.staged_key).sort());
  }, 120_000);
});

async function keysUnder(blobs: BlobStore, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const blob of blobs.list(prefix)) keys.push(blob.key);
  return keys.sort();
}
