import { photoLike, rawSharp } from '@loupe/imaging/src/testing/test-images';
import { createBullQueue, createInProcessQueue, JobQueue, ProcessorMap, startBullWorkers, WorkerHandle } from '@loupe/queue';
import { deleteKeys, randomPrefix, TEST_REDIS_URL } from '@loupe/queue/src/testing/redis-test-env';
import { BlobStore, Db, ImageRepository, MatchIndexRepository, migrate, MIGRATIONS, openBlobStore, openDatabase } from '@loupe/storage';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { stagingKey } from './blob-keys';
import { IngestPayload, IngestResult, JobKind } from './contracts';
import { decodeItemPlan, encodeItemPlan, ItemPlan } from './ingest-planning';
import { matchVocabulary } from './match/vocabulary';
import { createProcessors, ProcessorDeps } from './processors';
import { JOB_POLICY } from './job-registry';

/** Photos of three sizes and a file that is not an image: what one add of a bulk load meets. */
async function sampleFiles(): Promise<Array<{ name: string; data: Buffer }>> {
  const files = [];
  for (const [i, [w, h]] of [
    [900, 600],
    [500, 700],
    [640, 480],
    [800, 800],
  ].entries()) {
    files.push({ name: `photo-${i}.jpg`, data: await photoLike(w, h, 10 + i).then((img) => rawSharp(img).jpeg({ quality: 88 }).toBuffer()) });
  }
  files.push({ name: 'broken.jpg', data: files[0].data.subarray(0, 300) });
  return files;
}

describe('a plan made by another process', () => {
  it('comes back from its job result with its features, normalised copy, visual words, hash and colour set intact, without the upload', () => {
    const plan: ItemPlan = {
      ready: {
        row: { filepath: 'a.jpg', image_id: null, format: 'jpeg', width: 10, height: 10, norm_width: 10, norm_height: 10, blob_key: 'k', norm_blob_key: 'n', fingerprint_health: 50, searchable: true, unsearchable_reason: null, metadata: { a: 1 }, ingest_token: 't' },
        features: { count: 2, data: Buffer.from([1, 2, 3, 250]) },
        normalizedJpeg: new Uint8Array([0xff, 0xd8, 0xff, 0xd9]),
        original: new Uint8Array(1000),
        analyses: [{ words: new Uint32Array([7, 60_054, 3]), globalHash: 0xfedcba9876543210n, colourSet: 0x8000000000000101n }, [{ l: 50.5, weight: 0.25 }]],
        seconds: { resize: 0.01, add: 0.02, stages: { time_detect_label: 0.5 } },
      },
    };
    // Job results cross Redis as JSON; the uploaded bytes stay in the staged upload.
    const decoded = decodeItemPlan(JSON.parse(JSON.stringify(encodeItemPlan(plan))));
    expect(decoded).toEqual({ ready: { ...(plan as { ready: object }).ready, original: undefined } });
    expect('ready' in decoded && Buffer.isBuffer(decoded.ready.features.data)).toBe(true);
  });
});

/** An account's collection in a fresh database and blob folder, and what ingest stored in it. */
function collectionFixture() {
  const state = {} as { dir: string; db: Db; blobs: BlobStore; accountId: number };
  beforeEach(async () => {
    state.dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-ingest-fan-out-'));
    state.db = await openDatabase({});
    await migrate(state.db, MIGRATIONS);
    state.blobs = await openBlobStore({ dataDir: state.dir });
    state.accountId = (await state.db.query<{ id: number }>(`INSERT INTO accounts (name) VALUES ('acme') RETURNING id`)).rows[0].id;
  });
  afterEach(async () => {
    await state.db.close();
    await rm(state.dir, { recursive: true, force: true });
  });
  const deps = (ingestFanOut?: ProcessorDeps['ingestFanOut']): ProcessorDeps => ({
    images: new ImageRepository(state.db),
    blobs: state.blobs,
    matchIndex: new MatchIndexRepository(state.db),
    db: state.db,
    ingestFanOut,
  });
  const payloadOf = async (service: string, files: Array<{ name: string; data: Buffer }>, prefix: string): Promise<IngestPayload> => {
    const items = [];
    for (const { name, data } of files) {
      const staged_key = stagingKey();
      await state.blobs.put(staged_key, data);
      items.push({ filepath: `${prefix}/${name}`, image_id: null, staged_key });
    }
    return { account_id: state.accountId, account: 'acme', service, items, on_existing: 'refuse', preferred_side: 600, options: { ignore_background: true } };
  };
  /** Rows in commit order, with their features, search words, hash, colour set and palette, paths relative to `prefix`. */
  const stored = async (service: string, prefix: string) => {
    const { rows } = await state.db.query<{ id: number; filepath: string; palette: unknown }>(
      `SELECT i.id, i.filepath, i.norm_width, i.norm_height, i.fingerprint_health, i.searchable, p.palette, p.ignore_background
         FROM images i LEFT JOIN image_palettes p ON p.image_pk = i.id WHERE i.filepath LIKE $1 ORDER BY i.id`,
      [`${prefix}/%`],
    );
    const matchIndex = new MatchIndexRepository(state.db);
    const features = await matchIndex.features(rows.map((r) => r.id));
    const indexed = await matchIndex.indexedImages({ accountId: state.accountId, service }, matchVocabulary().id);
    return rows.map(({ id, filepath, ...row }) => {
      const entry = indexed.find((i) => i.image_pk === id);
      return { ...row, filepath: filepath.slice(prefix.length), features: features.get(id)?.toString('base64'), words: entry?.words.toString('base64'), hash: entry?.global_hash, colours: entry?.colour_set };
    });
  };
  return { state, deps, payloadOf, stored };
}

/** Counts each processor's `ingest_prepare` jobs under `name`. */
function counting(processors: ProcessorMap, counts: Map<string, number>, name: string): ProcessorMap {
  const prepare = processors[JobKind.IngestPrepare];
  return {
    ...processors,
    [JobKind.IngestPrepare]: (payload, ctx) => {
      counts.set(name, (counts.get(name) ?? 0) + 1);
      return prepare(payload, ctx);
    },
  };
}

describe('an add whose images are prepared as jobs of their own (INGEST_FAN_OUT)', () => {
  const { state, deps, payloadOf, stored } = collectionFixture();
  let files: Array<{ name: string; data: Buffer }>;
  beforeAll(async () => {
    files = await sampleFiles();
  }, 60_000);

  it('stores what an add prepared in its own process stores, in the batch order, for matching and color collections', async () => {
    let queue: JobQueue | null = null;
    const counts = new Map<string, number>();
    queue = createInProcessQueue({ policy: JOB_POLICY, processors: counting(createProcessors(deps({ queue: () => queue, parallelism: 10 })), counts, 'fleet') });
    const local = createInProcessQueue({ policy: JOB_POLICY, processors: createProcessors(deps()) });
    try {
      for (const service of ['mobile', 'color']) {
        const fannedOut = await queue.run<IngestResult>({ kind: JobKind.Ingest, group: `acme:${service}`, payload: await payloadOf(service, files, `${service}-fan-out`) });
        const inProcess = await local.run<IngestResult>({ kind: JobKind.Ingest, group: `acme:${service}`, payload: await payloadOf(service, files, `${service}-local`) });
        expect(fannedOut.added).toEqual(files.slice(0, 4).map((f) => `${service}-fan-out/${f.name}`));
        expect(fannedOut.errors).toEqual([expect.stringMatching(/^color-fan-out\/broken\.jpg: |^mobile-fan-out\/broken\.jpg: /)]);
        expect(fannedOut.errors[0].replace('fan-out', 'local')).toBe(inProcess.errors[0]);
        const rows = await stored(service, `${service}-fan-out`);
        expect(rows).toEqual(await stored(service, `${service}-local`));
        expect(rows.every((r) => (service === 'color' ? r.palette !== null : r.words !== undefined && r.hash !== null))).toBe(true);
      }
      expect(counts.get('fleet'), 'every image of both adds was a job of its own').toBe(2 * files.length);
      const blobs: string[] = [];
      for await (const blob of state.blobs.list('collections/')) blobs.push(blob.key);
      expect(blobs, 'two blobs per stored image, none for the refused file').toHaveLength(2 * 2 * 2 * 4);
      expect(await listKeys(state.blobs, 'staging/'), 'every staged upload is consumed').toEqual([]);
    } finally {
      await queue.close();
      await local.close();
    }
  }, 240_000);

  it('answers "already exists" for a path added before, and writes no second pair of blobs', async () => {
    let queue: JobQueue | null = null;
    const counts = new Map<string, number>();
    queue = createInProcessQueue({ policy: JOB_POLICY, processors: counting(createProcessors(deps({ queue: () => queue, parallelism: 10 })), counts, 'fleet') });
    try {
      await queue.run({ kind: JobKind.Ingest, group: 'acme:mobile', payload: await payloadOf('mobile', files.slice(0, 1), 'p') });
      const again = await queue.run<IngestResult>({ kind: JobKind.Ingest, group: 'acme:mobile', payload: await payloadOf('mobile', files.slice(0, 1), 'p') });
      expect(again.errors).toEqual([`p/${files[0].name}: This file already exists in the image collection.`]);
      expect(await listKeys(state.blobs, 'collections/')).toHaveLength(2);
    } finally {
      await queue.close();
    }
  }, 120_000);
});

async function listKeys(blobs: BlobStore, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const blob of blobs.list(prefix)) keys.push(blob.key);
  return keys.sort();
}

describe.skipIf(!TEST_REDIS_URL)('INGEST_FAN_OUT on BullMQ: one account’s add prepared by two worker processes', () => {
  const { deps, payloadOf, stored } = collectionFixture();
  let prefix: string;
  let workers: WorkerHandle[] = [];
  let queue: JobQueue | null = null;
  let files: Array<{ name: string; data: Buffer }>;
  beforeAll(async () => {
    files = await sampleFiles();
  }, 60_000);
  beforeEach(() => {
    prefix = randomPrefix();
  });
  afterEach(async () => {
    await Promise.all(workers.map((w) => w.close()));
    await queue?.close();
    await deleteKeys(TEST_REDIS_URL, prefix);
  });

  it('spreads the images over both workers and commits them in order through the account’s ingest job', async () => {
    const kinds = [JobKind.Ingest, JobKind.IngestPrepare];
    queue = createBullQueue({ policy: JOB_POLICY, redisUrl: TEST_REDIS_URL, prefix, kinds });
    const counts = new Map<string, number>();
    // Two workers as two processes would run them (one job at a time each); the first also takes the ingest jobs.
    const processorsOf = (name: string) => counting(createProcessors(deps({ queue: () => queue, parallelism: 10 })), counts, name);
    workers = [
      await startBullWorkers({ redisUrl: TEST_REDIS_URL, prefix, processors: processorsOf('first'), kinds, concurrency: 1 }),
      await startBullWorkers({ redisUrl: TEST_REDIS_URL, prefix, processors: processorsOf('second'), kinds: [JobKind.IngestPrepare], concurrency: 1 }),
    ];
    const batch = [...files, ...files.slice(0, 4).map((f) => ({ ...f, name: `again-${f.name}` }))];
    const result = await queue.run<IngestResult>({ kind: JobKind.Ingest, group: 'acme:mobile', payload: await payloadOf('mobile', batch, 'bulk') });
    expect(result.added).toEqual(batch.filter((f) => f.name !== 'broken.jpg').map((f) => `bulk/${f.name}`));
    expect((await stored('mobile', 'bulk')).map((r) => r.filepath)).toEqual(result.added.map((p) => p.slice('bulk'.length)));
    expect(counts.get('first')! + counts.get('second')!).toBe(batch.length);
    expect(counts.get('second'), 'the second worker prepared images of the add').toBeGreaterThan(0);
    expect(counts.get('first'), 'and so did the first').toBeGreaterThan(0);
  }, 240_000);
});
