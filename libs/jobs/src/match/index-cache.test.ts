import { seededRandom } from '@loupe/fingerprint';
import { AccountRepository, CollectionRef, Db, ImageRepository, MatchIndexRepository, migrate, MIGRATIONS, openDatabase } from '@loupe/storage';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { collectionBytes, MatchIndexCache } from './index-cache';
import { IndexSnapshots } from './index-snapshot';
import { insertIndexedImage } from './testing';
import { matchVocabulary } from './vocabulary';

const rand = seededRandom(13);

function randomWords(): Uint32Array {
  return Uint32Array.from({ length: 120 }, () => Math.floor(rand() * 10_000));
}

describe('collection index cache with snapshots', () => {
  let dir: string;
  let db: Db;
  let images: ImageRepository;
  let index: MatchIndexRepository;
  let ref: CollectionRef;
  const wordsOf = new Map<string, Uint32Array>();

  async function add(filepath: string): Promise<void> {
    const words = randomWords();
    wordsOf.set(filepath, words);
    // A hash that follows from the id, so a test can look an image up by it.
    await insertIndexedImage({ images, index }, ref, { filepath, words, globalHash: (pk) => BigInt(pk) * 7919n });
  }

  async function best(cache: MatchIndexCache, filepath: string): Promise<string | undefined> {
    const collection = await cache.get(ref);
    const [top] = collection.index.candidates(wordsOf.get(filepath)!, 1);
    return top && collection.paths.get(top.imageKey);
  }

  // One database (opening PGlite costs seconds); each test has its own account and snapshot folder.
  let accounts = 0;
  beforeAll(async () => {
    db = await openDatabase({});
    await migrate(db, MIGRATIONS);
    images = new ImageRepository(db);
    index = new MatchIndexRepository(db);
  });
  afterAll(() => db.close());

  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-snapshots-'));
    const account = await new AccountRepository(db).ensure(`acme-${++accounts}`);
    ref = { accountId: account.id, service: 'match' };
    wordsOf.clear();
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes a snapshot of a large enough collection, and a new process starts from it plus the log after it', async () => {
    for (let i = 0; i < 60; i++) await add(`img-${i}.jpg`);
    const snapshots = new IndexSnapshots(dir);
    const first = new MatchIndexCache(index, { snapshots, minImages: 50 });
    expect(await best(first, 'img-7.jpg')).toBe('img-7.jpg');
    await first.idle();
    expect(await readdir(dir)).toEqual([`collection-${ref.accountId}-match.index`]);

    // Changes after the snapshot: two removed, one added.
    await images.deleteByPaths(ref, ['img-7.jpg', 'img-8.jpg']);
    await add('late.jpg');

    // The new process must not read every image's words: only the log's additions.
    const reads: string[] = [];
    const counting = Object.create(index) as MatchIndexRepository;
    counting.indexedImagesPage = async (...args) => {
      reads.push('page');
      return index.indexedImagesPage(...args);
    };
    counting.indexedImages = async (r, v, pks) => {
      reads.push(`ids:${pks?.length}`);
      return index.indexedImages(r, v, pks);
    };
    const second = new MatchIndexCache(counting, { snapshots, minImages: 50 });
    const collection = await second.get(ref);
    expect(reads).toEqual(['ids:1']);
    expect(collection.index.size).toBe(59);
    expect([...collection.paths.values()].sort()).toEqual([...(await images.listPaths(ref, 0, 0))].sort());
    expect(await best(second, 'late.jpg')).toBe('late.jpg');
    expect(await best(second, 'img-30.jpg')).toBe('img-30.jpg');
    expect(collection.index.candidates(wordsOf.get('img-7.jpg')!, 60).map((c) => collection.paths.get(c.imageKey))).not.toContain('img-7.jpg');
    const [firstPk] = [...collection.paths.entries()].find(([, p]) => p === 'img-0.jpg')!;
    expect(collection.hashes.nearest(BigInt(firstPk) * 7919n, 0, 10).map((h) => h.key)).toEqual([firstPk]);
  });

  it('ignores a snapshot made from another database, and one that cannot be read, and loads from the rows', async () => {
    for (let i = 0; i < 10; i++) await add(`img-${i}.jpg`);
    const snapshots = new IndexSnapshots(dir);
    const writer = new MatchIndexCache(index, { snapshots, minImages: 5 });
    await writer.get(ref);
    await writer.idle();
    // Another database whose collection has the same account id: its own identity, so the file is not used.
    const otherDb = await openDatabase({});
    try {
      await migrate(otherDb, MIGRATIONS);
      const otherImages = new ImageRepository(otherDb);
      const otherIndex = new MatchIndexRepository(otherDb);
      // The other database's accounts take the same ids.
      let account = await new AccountRepository(otherDb).ensure('other-0');
      while (account.id < ref.accountId) account = await new AccountRepository(otherDb).ensure(`other-${account.id}`);
      expect(account.id).toBe(ref.accountId);
      await insertIndexedImage({ images: otherImages, index: otherIndex }, ref, { filepath: 'other.jpg', words: randomWords() });
      const collection = await new MatchIndexCache(otherIndex, { snapshots, minImages: 1_000 }).get(ref);
      expect([...collection.paths.values()]).toEqual(['other.jpg']);
    } finally {
      await otherDb.close();
    }
    // A snapshot cut short (a full disk) is loaded from the rows instead, and written again whole.
    const file = path.join(dir, `collection-${ref.accountId}-match.index`);
    await writeFile(file, Buffer.from([1, 2, 3]));
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      const rebuilding = new MatchIndexCache(index, { snapshots, minImages: 5 });
      const collection = await rebuilding.get(ref);
      expect(collection.index.size).toBe(10);
      await rebuilding.idle();
      expect(warnings.join()).toMatch(/cannot be read \(The index snapshot ends early\)/);
      expect((await new IndexSnapshots(dir).read({ databaseIdentity: await index.databaseIdentity(), vocabularyId: matchVocabulary().id, accountId: ref.accountId, service: 'match' }))?.paths.size).toBe(10);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('keeps the collections within its memory bound, dropping the least recently searched, never the one searched', async () => {
    // Three collections of 30 images: one account each.
    const refs: CollectionRef[] = [ref];
    for (let c = 1; c < 3; c++) refs.push({ accountId: (await new AccountRepository(db).ensure(`acme-bound-${accounts}-${c}`)).id, service: 'match' });
    const home = ref;
    for (const r of refs) {
      ref = r;
      for (let i = 0; i < 30; i++) await add(`c${r.accountId}-${i}.jpg`);
    }
    ref = home;
    const loads: number[] = [];
    const counting = Object.create(index) as MatchIndexRepository;
    counting.indexedImagesPage = async (r, ...rest) => {
      loads.push(r.accountId);
      return index.indexedImagesPage(r, ...rest);
    };
    const one = collectionBytes(await new MatchIndexCache(index).get(refs[0]));
    // Room for two collections, not three.
    const cache = new MatchIndexCache(counting, undefined, undefined, Math.round(one * 2.5));
    for (const r of [refs[0], refs[1], refs[0], refs[2]]) await cache.get(r);
    // refs[1] was searched longest ago when refs[2] came in.
    expect(cache.heldCollections).toEqual([`${refs[0].accountId}:match`, `${refs[2].accountId}:match`]);
    await cache.get(refs[1]);
    expect(loads).toEqual([refs[0].accountId, refs[1].accountId, refs[2].accountId, refs[1].accountId]);
    // A bound below one collection still keeps the one searched.
    const tiny = new MatchIndexCache(index, undefined, undefined, 1);
    await tiny.get(refs[0]);
    const searched = await tiny.get(refs[1]);
    expect(tiny.heldCollections).toEqual([`${refs[1].accountId}:match`]);
    expect(searched.index.size).toBe(30);
  });

  it('writes no snapshot for a small collection', async () => {
    for (let i = 0; i < 5; i++) await add(`img-${i}.jpg`);
    const cache = new MatchIndexCache(index, { snapshots: new IndexSnapshots(dir), minImages: 50 });
    expect(await best(cache, 'img-3.jpg')).toBe('img-3.jpg');
    await cache.idle();
    expect(await readdir(dir)).toEqual([]);
  });

  it('keeps searching when a snapshot cannot be written, and does not try again within 10 minutes', async () => {
    for (let i = 0; i < 10; i++) await add(`img-${i}.jpg`);
    // A folder that cannot be created: a file stands where it should be.
    const blocked = path.join(dir, 'blocked');
    await writeFile(blocked, 'not a folder');
    const cache = new MatchIndexCache(index, { snapshots: new IndexSnapshots(path.join(blocked, 'snapshots')), minImages: 5 });
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      expect(await best(cache, 'img-3.jpg')).toBe('img-3.jpg');
      await cache.idle();
      await new Promise((resolve) => setImmediate(resolve));
      // The folder is unusable for reading too: said once when loading, once when writing.
      expect(warnings.join('\n')).toMatch(/cannot be read \(ENOTDIR.*\n.*could not be written \(ENOTDIR.*the next try is in 10 minutes/);
      await add('img-late.jpg');
      expect(await best(cache, 'img-late.jpg')).toBe('img-late.jpg');
      await cache.idle();
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings, warnings.join(' | ')).toHaveLength(2);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
