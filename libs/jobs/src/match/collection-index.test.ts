import { encodeColourShares, seededRandom } from '@loupe/fingerprint';
import { createInProcessQueue, JobQueue, ProcessorMap } from '@loupe/queue';
import { AccountRepository, CollectionRef, collectionShardOf, Db, ImageRepository, MatchIndexRepository, migrate, MIGRATIONS, openDatabase } from '@loupe/storage';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  answerCandidateJob,
  Candidate,
  collectionCandidateKind,
  CollectionCandidatesPayload,
  ColourCandidate,
  COLOUR_SHORTLIST,
  COLOUR_MIN_LIKENESS,
  collectionCandidateKinds,
  HashProbe,
  LocalCollectionIndex,
  mergeShortlists,
  parseCollectionShardSets,
  QueuedCollectionIndex,
  rankedByColourShares,
} from './collection-index';
import { MatchIndexCache } from './index-cache';
import { IndexSnapshots } from './index-snapshot';
import { insertIndexedImage } from './testing';
import { matchVocabulary } from './vocabulary';
import { JOB_POLICY } from '../job-registry';
import { MAX_VERIFIED } from './verify-rounds';

const rand = seededRandom(29);
const IMAGES = 240;

/** Words drawn unevenly (a few common words, a long tail), as real images' words are, so idf matters to the ranking. */
function randomWords(): Uint32Array {
  return Uint32Array.from({ length: 150 }, () => Math.floor(10_000 * rand() ** 3));
}

/** A query sharing part of an image's words, the rest drawn anew: an edited copy. */
function editedCopy(words: Uint32Array): Uint32Array {
  return words.map((w) => (rand() < 0.5 ? w : Math.floor(10_000 * rand() ** 3)));
}

function randomHash(): bigint {
  return BigInt.asUintN(64, (BigInt(Math.floor(rand() * 2 ** 32)) << 32n) | BigInt(Math.floor(rand() * 2 ** 32)));
}

/** Owners of every set of `sets`, reached through an in-process queue, as the workers' processors are. */
function ownersOf(index: MatchIndexRepository, sets: string, snapshots?: IndexSnapshots): { queued: QueuedCollectionIndex; queue: JobQueue } {
  const processors: ProcessorMap = {};
  for (const set of parseCollectionShardSets(sets)!) {
    const owner = new LocalCollectionIndex(new MatchIndexCache(index, snapshots && { snapshots, minImages: 10 }, set));
    processors[collectionCandidateKind(set)] = (payload: CollectionCandidatesPayload) => answerCandidateJob(owner, payload);
  }
  const queue = createInProcessQueue({ policy: JOB_POLICY, processors });
  return { queued: new QueuedCollectionIndex(parseCollectionShardSets(sets)!, () => queue), queue };
}

function rounded(candidates: Candidate[]) {
  return candidates.map((c) => ({ ...c, votes: Number(c.votes.toFixed(9)) }));
}

describe('COLLECTION_SHARD_SETS', () => {
  it('names one job kind per set and refuses sets that leave a shard out', () => {
    expect(collectionCandidateKinds(undefined)).toEqual([]);
    expect(collectionCandidateKinds('0-7,8-15')).toEqual(['collection_candidates_0-7', 'collection_candidates_8-15']);
    expect(() => parseCollectionShardSets('0-6,8-15')).toThrow(/COLLECTION_SHARD_SETS: .*leaves out shards 7/);
    expect(() => parseCollectionShardSets('0-16')).toThrow(/outside 0-15/);
  });
});

describe('a partitioned collection answers what the whole collection answers', () => {
  let db: Db;
  let images: ImageRepository;
  let index: MatchIndexRepository;
  let ref: CollectionRef;
  const wordsOf = new Map<string, Uint32Array>();
  const hashOf = new Map<string, bigint>();
  const coloursOf = new Map<string, bigint>();

  async function add(filepath: string): Promise<number> {
    const words = randomWords();
    const hash = randomHash();
    const colourSet = randomHash();
    wordsOf.set(filepath, words);
    hashOf.set(filepath, hash);
    coloursOf.set(filepath, colourSet);
    return insertIndexedImage({ images, index }, ref, { filepath, words, globalHash: () => hash, colourSet });
  }

  beforeAll(async () => {
    db = await openDatabase({});
    await migrate(db, MIGRATIONS);
    images = new ImageRepository(db);
    index = new MatchIndexRepository(db);
    ref = { accountId: (await new AccountRepository(db).ensure('acme')).id, service: 'match' };
    for (let i = 0; i < IMAGES; i++) await add(`${i % 3 === 0 ? 'prints' : 'photos'}/img-${i}.jpg`);
  }, 120_000);
  afterAll(() => db.close());

  it('spreads the collection over every shard', async () => {
    const page = await index.indexedImagesPage(ref, matchVocabulary().id, 0, 1000);
    const shards = new Set(page.map((row) => collectionShardOf(row.image_pk)));
    expect(shards.size).toBe(16);
    const low = await index.indexedImagesPage(ref, matchVocabulary().id, 0, 1000, [0, 1, 2, 3, 4, 5, 6, 7]);
    expect(low.length).toBe(page.filter((row) => collectionShardOf(row.image_pk) < 8).length);
    expect(low.every((row) => collectionShardOf(row.image_pk) < 8)).toBe(true);
    // What owners load before taking jobs: collections of at least so many indexed images.
    expect(await index.largeCollections(IMAGES)).toEqual([ref]);
    expect(await index.largeCollections(IMAGES + 1)).toEqual([]);
  });

  it('gives the same candidates, votes and order with two or four shard sets as one index of every image', async () => {
    const whole = new LocalCollectionIndex(new MatchIndexCache(index));
    for (const sets of ['0-7,8-15', '0-3,4-7,8-11,12-15']) {
      const { queued, queue } = ownersOf(index, sets);
      for (const i of [0, 17, 101, 239]) {
        const words = wordsOf.get(`${i % 3 === 0 ? 'prints' : 'photos'}/img-${i}.jpg`)!;
        const requests = [
          { wordLists: [editedCopy(words)], filters: {} },
          // A flip check's two lists, a folder filter, a queried path.
          { wordLists: [editedCopy(words), randomWords()], filters: { path_filter: 'prints' }, queriedPath: 'prints/img-0.jpg' },
          { wordLists: [randomWords()], filters: { name_filter: 'img-1*' } },
        ];
        for (const request of requests) {
          const expected = await whole.candidates(ref, request);
          expect(expected.length).toBeGreaterThan(0);
          expect(rounded(await queued.candidates(ref, request))).toEqual(rounded(expected));
        }
      }
      await queue.close();
    }
  });

  it('finds an edited copy first, and the queried image first when searching by its path', async () => {
    const { queued, queue } = ownersOf(index, '0-7,8-15');
    const [top] = await queued.candidates(ref, { wordLists: [editedCopy(wordsOf.get('photos/img-50.jpg')!)], filters: {} });
    expect(top.filepath).toBe('photos/img-50.jpg');
    const byPath = await queued.candidates(ref, { wordLists: [wordsOf.get('photos/img-8.jpg')!], filters: {}, queriedPath: 'photos/img-7.jpg' });
    expect(byPath[0].filepath).toBe('photos/img-7.jpg');
    await queue.close();
  });

  it('gives the same whole-image hash neighbours, filtered and nearest first', async () => {
    const whole = new LocalCollectionIndex(new MatchIndexCache(index));
    const { queued, queue } = ownersOf(index, '0-3,4-7,8-11,12-15');
    const target = hashOf.get('prints/img-33.jpg')!;
    const probes: HashProbe[] = [
      { hash: target ^ 0b1011n, flipped: false },
      { hash: randomHash(), flipped: true },
    ];
    const expected = await whole.nearestByHash(ref, probes, {});
    expect(expected[0][0]).toMatchObject({ filepath: 'prints/img-33.jpg', distance: 3 });
    expect(await queued.nearestByHash(ref, probes, {})).toEqual(expected);
    expect(await queued.nearestByHash(ref, probes, { path_filter: 'photos' })).toEqual(await whole.nearestByHash(ref, probes, { path_filter: 'photos' }));
    await queue.close();
  });

  it('gives the same images most alike in colour, filtered and most alike first', async () => {
    const whole = new LocalCollectionIndex(new MatchIndexCache(index));
    const { queued, queue } = ownersOf(index, '0-3,4-7,8-11,12-15');
    // The colours of a crop: most of its image's bins, one of them missing.
    const cropOf = (filepath: string) => {
      const set = coloursOf.get(filepath)!;
      return set & ~(set & -set);
    };
    const mostAlike = (candidates: ColourCandidate[]) =>
      candidates.length <= COLOUR_SHORTLIST && candidates.every((c, i) => c.likeness >= COLOUR_MIN_LIKENESS && (i === 0 || c.likeness <= candidates[i - 1].likeness));
    const expected = await whole.alikeInColour(ref, cropOf('photos/img-40.jpg'), {});
    expect(expected[0].filepath).toBe('photos/img-40.jpg');
    expect(mostAlike(expected)).toBe(true);
    expect(await queued.alikeInColour(ref, cropOf('photos/img-40.jpg'), {})).toEqual(expected);
    const prints = await whole.alikeInColour(ref, cropOf('prints/img-33.jpg'), { path_filter: 'prints' });
    expect(prints[0].filepath).toBe('prints/img-33.jpg');
    expect(mostAlike(prints) && prints.every((c) => c.filepath.startsWith('prints/'))).toBe(true);
    expect(await queued.alikeInColour(ref, cropOf('prints/img-33.jpg'), { path_filter: 'prints' })).toEqual(prints);
    expect(await queued.alikeInColour(ref, cropOf('photos/img-40.jpg'), { path_filter: 'prints' })).toEqual(await whole.alikeInColour(ref, cropOf('photos/img-40.jpg'), { path_filter: 'prints' }));
    await queue.close();
  });

  it('follows adds and deletes made after the owners loaded, each owner only its own shards', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-shard-snapshots-'));
    try {
      const { queued, queue } = ownersOf(index, '0-7,8-15', new IndexSnapshots(dir));
      // A whole index that loads now and follows the same changes: removed images keep counting in N and df until
      // compaction, in both.
      const whole = new LocalCollectionIndex(new MatchIndexCache(index));
      await whole.load(ref);
      await queued.candidates(ref, { wordLists: [randomWords()], filters: {} });
      // Each owner wrote the snapshot of its own part, under its set's name.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect((await readdir(dir)).sort()).toEqual([`collection-${ref.accountId}-match-shards-0-7.index`, `collection-${ref.accountId}-match-shards-8-15.index`]);

      const latePk = await add('late/new.jpg');
      await images.deleteByPaths(ref, ['photos/img-50.jpg']);
      const [top] = await queued.candidates(ref, { wordLists: [wordsOf.get('late/new.jpg')!], filters: {} });
      expect(top).toMatchObject({ imagePk: latePk, filepath: 'late/new.jpg' });
      const afterDelete = await queued.candidates(ref, { wordLists: [wordsOf.get('photos/img-50.jpg')!], filters: {} });
      expect(afterDelete.map((c) => c.filepath)).not.toContain('photos/img-50.jpg');
      expect(rounded(afterDelete)).toEqual(rounded(await whole.candidates(ref, { wordLists: [wordsOf.get('photos/img-50.jpg')!], filters: {} })));
      await queue.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('fails a search whose shard set has no owner, naming the set', async () => {
    const queue = createInProcessQueue({ policy: JOB_POLICY, processors: { [collectionCandidateKind([0, 1, 2, 3, 4, 5, 6, 7])]: async () => [] } });
    const queued = new QueuedCollectionIndex(parseCollectionShardSets('0-7,8-15')!, () => queue, 200);
    await expect(queued.candidates(ref, { wordLists: [randomWords()], filters: {} })).rejects.toThrow(/collection shard set 8-15/);
    await queue.close();
  });
});

describe('an image without words (no corner at all)', () => {
  it('is found by its whole-image hash and leaves the vote as it was, loaded or followed from the log', async () => {
    const db = await openDatabase({});
    try {
      await migrate(db, MIGRATIONS);
      const images = new ImageRepository(db);
      const index = new MatchIndexRepository(db);
      const ref = { accountId: (await new AccountRepository(db).ensure('acme')).id, service: 'match' };
      const words = Array.from({ length: 30 }, () => randomWords());
      for (const [i, w] of words.entries()) await insertIndexedImage({ images, index }, ref, { filepath: `photos/${i}.jpg`, words: w });
      const request = { wordLists: [editedCopy(words[7])], filters: {} };
      const followed = new LocalCollectionIndex(new MatchIndexCache(index));
      const before = await followed.candidates(ref, request);
      const [statistics] = await followed.voteStatistics(ref, request.wordLists);

      const hash = randomHash();
      await insertIndexedImage({ images, index }, ref, { filepath: 'gradients/soft.png', words: new Uint32Array(0), globalHash: () => hash });
      const loaded = new LocalCollectionIndex(new MatchIndexCache(index));
      for (const collection of [followed, loaded]) {
        expect(await collection.candidates(ref, request)).toEqual(before);
        expect((await collection.voteStatistics(ref, request.wordLists))[0].images).toBe(statistics.images);
        const [[nearest]] = await collection.nearestByHash(ref, [{ hash: hash ^ 0b101n, flipped: false }], {});
        expect(nearest).toMatchObject({ filepath: 'gradients/soft.png', distance: 2 });
      }
    } finally {
      await db.close();
    }
  });
});

describe('shortlists of word lists voted with apart', () => {
  const shortlist = (votes: number[], firstPk: number): Candidate[] => votes.map((v, i) => ({ imagePk: firstPk + i, filepath: `p/${firstPk + i}`, votes: v }));

  it('ranks each image by its votes relative to its own shortlist, so a list of fewer words still leads', () => {
    // Twelve images with 40-29 votes; a second list whose own first image (id 100) has 9 votes where its tenth has 3.
    const many = shortlist([40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29], 1);
    const few = shortlist([9, 4, 3.9, 3.8, 3.7, 3.6, 3.5, 3.4, 3.3, 3, 2], 100);
    const merged = mergeShortlists([many, few], undefined);
    expect(merged[0].imagePk).toBe(100);
    expect(merged[0].votes).toBeCloseTo(3);
    expect(merged.map((c) => c.imagePk)).toContain(1);
    expect(merged.filter((c) => c.imagePk === 1)).toHaveLength(1);
  });

  it('takes an image in both shortlists at its better rank, keeps the queried image first and verifies at most MAX_VERIFIED', () => {
    const a = shortlist(Array.from({ length: 60 }, (_, i) => 100 - i), 1);
    const b = shortlist(Array.from({ length: 60 }, (_, i) => 70 - i), 31);
    const merged = mergeShortlists([a, b], 'p/90');
    expect(merged).toHaveLength(MAX_VERIFIED);
    expect(merged[0].imagePk).toBe(90);
    expect(merged[1].imagePk).toBe(31);
    expect(merged[1].votes).toBeCloseTo(70 / 61);
    expect(new Set(merged.map((c) => c.imagePk)).size).toBe(merged.length);
  });

  it('keeps one shortlist as it is ranked', () => {
    const a = shortlist([5, 4, 3], 7);
    expect(mergeShortlists([a], undefined).map((c) => c.imagePk)).toEqual([7, 8, 9]);
  });
});

describe('a colour shortlist ranked again by colour shares', () => {
  /** Shares of 64 bins: `of` maps bins to their share, the rest 0. */
  const shares = (of: Record<number, number>) => Float64Array.from({ length: 64 }, (_, bin) => of[bin] ?? 0);
  const query = shares({ 3: 0.6, 9: 0.3, 40: 0.1 });

  it('puts the image holding the query\'s colours in its amounts first, before one whose set is as alike', () => {
    const shortlist = [
      { imagePk: 1, likeness: 1 }, // the same bins, in other amounts: overlap 0.1 + 0.3 + 0.1
      { imagePk: 2, likeness: 1 }, // the same bins and amounts: overlap 1
      { imagePk: 3, likeness: 0.8 }, // most of the query's colour, one bin fewer: overlap 0.9
    ];
    const stored = new Map([
      [1, encodeColourShares(shares({ 3: 0.1, 9: 0.8, 40: 0.1 }))],
      [2, encodeColourShares(query)],
      [3, encodeColourShares(shares({ 3: 0.6, 9: 0.4 }))],
    ]);
    expect(rankedByColourShares(shortlist, query, stored).map((c) => c.imagePk)).toEqual([2, 3, 1]);
  });

  it('counts the set likeness twice for an image stored without shares, and ranks equals by key', () => {
    const shortlist = [
      { imagePk: 7, likeness: 0.9 },
      { imagePk: 5, likeness: 0.5 },
      { imagePk: 4, likeness: 0.5 },
    ];
    const stored = new Map([
      [5, encodeColourShares(shares({ 60: 1 }))], // none of the query's colour: 0.5 + 0
      [4, encodeColourShares(shares({ 61: 1 }))],
    ]);
    expect(rankedByColourShares(shortlist, query, stored).map((c) => c.imagePk)).toEqual([7, 4, 5]);
  });
});
