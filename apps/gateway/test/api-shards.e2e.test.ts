import { ManifestEntry, PublicImportService, runImport } from '@loupe/jobs';
import { PUBLIC_INDEX_PARTITIONS } from '@loupe/storage';
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipart, signedQuery } from './api-signing';
import { apiBody, ApiBody, ApiSearchResults } from './bodies';
import { MODES, startTestSystem, TestSystem } from './harness';
import { sceneJpeg } from './images';
import { freePort, killHard, startApp, waitFor, serversEnv } from './processes';

/**
 * Shard ownership (PUBLIC_SHARD_SETS=0-7,8-15): a public search fans out one candidate job per shard set and merges.
 * Embedded: both sets run through the in-process queue. Real: the gateway runs no workers; one worker process runs
 * public_search and owns shards 0-7, another owns 8-15 only, so an image in 8-15 can only be found through Redis.
 */
const KEY = { publicKey: 'pub-shard', privateKey: 'priv-shard' };
const SETS = '0-7,8-15';
const IMAGES = 6;

interface Indexed {
  original: Buffer;
  imageUrl: string;
  shard: number;
}

async function importScenes(sys: TestSystem): Promise<Indexed[]> {
  const originals = await Promise.all(Array.from({ length: IMAGES }, (_, i) => sceneJpeg(900 + i, 640, 480)));
  const entries: ManifestEntry[] = originals.map((_, i) => ({
    line: i + 1,
    source: String(i),
    image_url: `https://cdn.shard${i}.example.com/${i}.jpg`,
    backlink: `https://shard${i}.example.com/page`,
    domain: `shard${i}.example.com`,
    crawl_date: '2024-05-01',
  }));
  const service = new PublicImportService(sys.gateway.infra.publicIndex, sys.gateway.infra.blobs, async (source) => originals[Number(source)]);
  const progress = await runImport(service, entries);
  expect(progress.counts.added).toBe(IMAGES);
  const repo = sys.gateway.infra.publicIndex;
  const changes = await repo.changesSince(Array.from({ length: PUBLIC_INDEX_PARTITIONS }, (_, s) => s), 0);
  const links = await repo.backlinks(changes.map((c) => c.image_id));
  return changes.map((c) => {
    const imageUrl = links.get(c.image_id)![0].image_url;
    return { original: originals[Number(/\/(\d+)\.jpg$/.exec(imageUrl)![1])], imageUrl, shard: c.shard };
  });
}

async function search(base: string, query: Buffer): Promise<{ status: number; body: ApiBody<ApiSearchResults> }> {
  const boundary = `----loupe${randomBytes(6).toString('hex')}`;
  const params = signedQuery('POST', 'search', { limit: '5' }, KEY, base, { boundary, filename: 'q.jpg' });
  const res = await fetch(`${base}search/?${params}`, {
    method: 'POST',
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    body: multipart(boundary, 'q.jpg', query),
  });
  return { status: res.status, body: await apiBody(res, 'search') };
}

const crop = (image: Buffer) => sharp(image).extract({ left: 100, top: 80, width: 440, height: 330 }).jpeg({ quality: 80 }).toBuffer();

/** Candidate jobs of one kind a process ran, from its Prometheus metrics. */
function jobsRun(metrics: string, kind: string): number {
  const line = metrics.split('\n').find((l) => l.startsWith(`loupe_job_duration_seconds_count{kind="${kind}",outcome="ok"}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

/** One image of each shard set, so each search can only succeed through that set's owner. */
function onePerSet(indexed: Indexed[]): [Indexed, Indexed] {
  const low = indexed.find((i) => i.shard < 8);
  const high = indexed.find((i) => i.shard >= 8);
  expect(low, `shards ${indexed.map((i) => i.shard)}`).toBeDefined();
  expect(high, `shards ${indexed.map((i) => i.shard)}`).toBeDefined();
  return [low!, high!];
}

describe('public index shard sets, embedded (in-process queue)', () => {
  let sys: TestSystem;
  let indexed: Indexed[];

  beforeAll(async () => {
    sys = await startTestSystem('embedded', { API_KEYS: `shard-acct:${KEY.publicKey}:${KEY.privateKey}:100`, PUBLIC_SHARD_SETS: SETS });
    indexed = await importScenes(sys);
  }, 120_000);
  afterAll(() => sys?.destroy());

  it('finds images of both shard sets, each set answering through its own candidate job', async () => {
    const base = `${sys.url}/api/rest/`;
    for (const image of onePerSet(indexed)) {
      const res = await search(base, await crop(image.original));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.results.matches[0]?.image_url).toBe(image.imageUrl);
    }
    const metrics = await (await fetch(`${sys.gateway.metricsUrl}/metrics`)).text();
    expect(jobsRun(metrics, 'public_candidates_0-7')).toBe(2);
    expect(jobsRun(metrics, 'public_candidates_8-15')).toBe(2);
  }, 120_000);
});

const real = MODES.find((m) => m.name === 'real')!;

describe.skipIf(!real.enabled)('public index shard sets, real (two worker processes owning disjoint sets)', () => {
  let sys: TestSystem;
  let indexed: Indexed[];
  const workers: Array<{ app: ReturnType<typeof startApp>; port: number }> = [];

  beforeAll(async () => {
    sys = await startTestSystem('real', { API_KEYS: `shard-acct:${KEY.publicKey}:${KEY.privateKey}:100`, PUBLIC_SHARD_SETS: SETS, RUN_WORKERS: 'false' });
    indexed = await importScenes(sys);
    const env = {
      ...serversEnv(sys.config),
      PUBLIC_SHARD_SETS: SETS,
      VERIFY_THREADS: '0',
      SWEEP_INTERVAL_MINUTES: '0',
    };
    for (const queues of ['public_search,public_candidates_0-7', 'public_candidates_8-15']) {
      const port = await freePort();
      workers.push({ app: startApp('worker', { ...env, WORKER_QUEUES: queues, METRICS_PORT: String(port) }), port });
    }
    for (const w of workers) await waitFor('a worker to start', () => w.app.output().includes('worker ready'), 90_000);
  }, 240_000);

  afterAll(async () => {
    await Promise.all(workers.map((w) => killHard(w.app.child)));
    await sys?.destroy();
  });

  it('finds images of both shard sets, the 8-15 ones through the other process', async () => {
    const base = `${sys.url}/api/rest/`;
    for (const image of onePerSet(indexed)) {
      const res = await search(base, await crop(image.original));
      expect(res.status, `${JSON.stringify(res.body)}\n${workers.map((w) => w.app.output()).join('\n')}`).toBe(200);
      expect(res.body.results.matches[0]?.image_url).toBe(image.imageUrl);
    }
    const [searcher, owner] = await Promise.all(workers.map(async (w) => (await fetch(`http://127.0.0.1:${w.port}/metrics`)).text()));
    expect(jobsRun(searcher, 'public_search')).toBe(2);
    expect(jobsRun(searcher, 'public_candidates_0-7')).toBe(2);
    expect(jobsRun(searcher, 'public_candidates_8-15')).toBe(0);
    expect(jobsRun(owner, 'public_candidates_8-15')).toBe(2);
    expect(jobsRun(owner, 'public_candidates_0-7')).toBe(0);
    expect(workers[1].app.output()).toMatch(/public_candidates_8-15 loaded in/);
    expect(workers[1].app.output()).not.toMatch(/public_candidates_0-7 loaded/);
  }, 120_000);
});
