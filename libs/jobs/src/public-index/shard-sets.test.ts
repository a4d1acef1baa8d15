import { createInProcessQueue, JobContext, JobQueue, ProcessorMap } from '@loupe/queue';
import { BlobStore, Db, encodeWords, migrate, MIGRATIONS, openDatabase, PUBLIC_INDEX_PARTITIONS, PublicIndexRepository } from '@loupe/storage';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matchVocabulary } from '../match/vocabulary';
import { publicIndexProcessors } from './processors';
import { PublicIndexShards } from './shard-index';
import { candidateKind, parseShardSets, QueuedCandidateSource } from './shard-sets';
import { JOB_POLICY } from '../job-registry';

describe('PUBLIC_SHARD_SETS', () => {
  it('reads disjoint ranges covering every shard, and names each set by its range', () => {
    expect(parseShardSets(undefined)).toBeNull();
    expect(parseShardSets(' ')).toBeNull();
    const sets = parseShardSets('0-7, 8-14,15')!;
    expect(sets).toEqual([[0, 1, 2, 3, 4, 5, 6, 7], [8, 9, 10, 11, 12, 13, 14], [15]]);
    expect(sets.map(candidateKind)).toEqual(['public_candidates_0-7', 'public_candidates_8-14', 'public_candidates_15']);
  });

  it('refuses overlaps, gaps, out-of-range shards and other syntax', () => {
    expect(() => parseShardSets('0-8,8-15')).toThrow(/names shard 8 twice/);
    expect(() => parseShardSets('0-6,8-15')).toThrow(/leaves out shards 7/);
    expect(() => parseShardSets('0-16')).toThrow(/outside 0-15/);
    expect(() => parseShardSets('7-0,8-15')).toThrow(/reversed/);
    expect(() => parseShardSets('0..15')).toThrow(/not a shard or a range/);
  });
});

describe('shard sets over the job queue', () => {
  const vocabularyId = matchVocabulary().id;
  const vocabularySize = matchVocabulary().vocabulary.size;
  let db: Db;
  let repo: PublicIndexRepository;
  const shardOf = new Map<number, number>();
  const wordsOf = new Map<number, Uint32Array>();

  beforeAll(async () => {
    db = await openDatabase({});
    await migrate(db, MIGRATIONS);
    repo = new PublicIndexRepository(db);
    let seed = 11;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let i = 0; i < 96; i++) {
      const words = Uint32Array.from({ length: 60 }, () => Math.floor(rand() * vocabularySize));
      const { id } = await repo.insertImage(
        {
          content_hash: createHash('sha256').update(`img${i}`).digest(),
          format: 'jpeg', width: 400, height: 300, filesize: 1000, norm_width: 400, norm_height: 300, norm_blob_key: 'none',
          feature_count: 0, features: Buffer.alloc(0), vocabulary: vocabularyId, words: encodeWords(words),
        },
        { image_url: `https://x.example/${i}.jpg`, backlink: `https://x.example/p${i}`, domain: 'x.example', crawl_date: null },
        createHash('sha1').update(`entry${i}`).digest(),
      );
      wordsOf.set(id, words);
    }
    for (const c of await repo.changesSince(Array.from({ length: PUBLIC_INDEX_PARTITIONS }, (_, s) => s), 0)) shardOf.set(c.image_id, c.shard);
  }, 60_000);
  afterAll(() => db.close());

  it('fills both shard sets with test images', () => {
    expect([...shardOf.values()].filter((s) => s < 8).length).toBeGreaterThan(10);
    expect([...shardOf.values()].filter((s) => s >= 8).length).toBeGreaterThan(10);
  });

  it('loads only its own shards in an owner, and answers only with images living there', async () => {
    const loaded: number[] = [];
    const spy = new Proxy(repo, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (name === 'shardWords') return (shard: number, ...rest: unknown[]) => (loaded.push(shard), value.call(target, shard, ...rest));
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const processors = publicIndexProcessors(spy, {} as BlobStore, undefined, { sets: '0-7,8-15', queue: () => null });
    expect(Object.keys(processors).sort()).toEqual(['public_candidates_0-7', 'public_candidates_8-15', 'public_search']);
    const [someId, words] = [...wordsOf].find(([id]) => shardOf.get(id)! >= 8)!;
    const answer = (await processors['public_candidates_8-15']({ words: Array.from(words), limit: 20 }, { kind: 'x', group: 'g', attempt: 1 })) as Array<{ imageId: number }>;
    expect(answer[0].imageId).toBe(someId);
    for (const c of answer) expect(shardOf.get(c.imageId)).toBeGreaterThanOrEqual(8);
    expect(new Set(loaded)).toEqual(new Set([8, 9, 10, 11, 12, 13, 14, 15]));
  });

  it('fans out through the in-process queue and merges to exactly what one process holding every shard finds', async () => {
    let queue: JobQueue | null = null;
    const processors = publicIndexProcessors(repo, {} as BlobStore, undefined, { sets: '0-3,4-11,12-15', queue: () => queue });
    queue = createInProcessQueue({ policy: JOB_POLICY, processors });
    const remote = new QueuedCandidateSource(parseShardSets('0-3,4-11,12-15')!, () => queue);
    const local = new PublicIndexShards(repo, vocabularyId);
    const ran: string[] = [];
    const counting = createInProcessQueue({
      policy: JOB_POLICY,
      processors: Object.fromEntries(Object.entries(processors as ProcessorMap).map(([k, p]) => [k, (payload: unknown, ctx: JobContext) => (ran.push(k), p(payload, ctx))])),
    });
    const counted = new QueuedCandidateSource(parseShardSets('0-3,4-11,12-15')!, () => counting);
    for (const [id, words] of [...wordsOf].slice(0, 12)) {
      const expected = await local.candidates(words, 30);
      expect(expected[0].imageId).toBe(id);
      expect(await remote.candidates(words, 30)).toEqual(expected);
    }
    await counted.candidates(wordsOf.values().next().value!, 5);
    expect(ran.sort()).toEqual(['public_candidates_0-3', 'public_candidates_12-15', 'public_candidates_4-11']);
    await queue.close();
    await counting.close();
  });

  it('fails a search naming the shard set whose owner does not answer in time', async () => {
    const queue = createInProcessQueue({
      policy: JOB_POLICY,
      processors: { 'public_candidates_0-7': async () => [], 'public_candidates_8-15': () => new Promise(() => undefined) },
    });
    const source = new QueuedCandidateSource(parseShardSets('0-7,8-15')!, () => queue, 200);
    await expect(source.candidates(Uint32Array.of(1, 2, 3), 10)).rejects.toThrow(/shard set 8-15: The request timed out/);
    await queue.close();
  });
});
