import { ALL_JOB_KINDS } from '@loupe/jobs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, formWith, MODES, startTestSystem, TestSystem } from './harness';
import { sceneJpeg } from './images';
import { freePort, killHard, serversEnv, startApp, waitFor } from './processes';

/**
 * Partitioned collections (COLLECTION_SHARD_SETS=0-7,8-15): a collection search fans out to the owners of each shard
 * set (images by id mod 16) and merges. Embedded: both sets run through the in-process queue. Real: the gateway runs
 * no workers; one worker process runs every other kind and owns shards 0-7, another owns 8-15 only, so an image of
 * 8-15 can only be found through Redis and the other process.
 */
const SETS = '0-7,8-15';
/** Image ids start at 1 in a new database: 12 images put ids 8-12 in the second set. */
const IMAGES = 12;

const crop = (image: Buffer) => sharp(image).extract({ left: 90, top: 70, width: 460, height: 340 }).jpeg({ quality: 80 }).toBuffer();

/** Jobs of one kind a process ran, from its Prometheus metrics. */
function jobsRun(metrics: string, kind: string): number {
  const line = metrics.split('\n').find((l) => l.startsWith(`loupe_job_duration_seconds_count{kind="${kind}",outcome="ok"}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

async function addScenes(sys: TestSystem): Promise<Buffer[]> {
  const scenes = await Promise.all(Array.from({ length: IMAGES }, (_, i) => sceneJpeg(5100 + i, 640, 480)));
  for (let first = 0; first < IMAGES; first += 6) {
    const files = scenes.slice(first, first + 6).map((data, i) => ({ field: `images[${i}]`, data, filename: `shelf/scene-${first + i}.jpg` }));
    const res = await call(sys, 'mobile', 'add', { form: formWith(files) });
    expect(res.json.status, res.text).toBe('ok');
  }
  return scenes;
}

async function topHit(sys: TestSystem, query: Buffer): Promise<string | undefined> {
  const res = await call(sys, 'mobile', 'search', { form: formWith([{ field: 'image', data: query, filename: 'query.jpg' }]) });
  expect(res.json.status, res.text).toBe('ok');
  return res.json.result[0]?.filepath;
}

describe('partitioned collections, embedded (in-process queue)', () => {
  let sys: TestSystem;
  let scenes: Buffer[];

  beforeAll(async () => {
    sys = await startTestSystem('embedded', { COLLECTION_SHARD_SETS: SETS });
    scenes = await addScenes(sys);
  }, 180_000);
  afterAll(() => sys?.destroy());

  it('finds a crop of every image, each set answering through its own candidate jobs', async () => {
    for (let i = 0; i < IMAGES; i++) expect(await topHit(sys, await crop(scenes[i]))).toBe(`shelf/scene-${i}.jpg`);
    const metrics = await (await fetch(`${sys.gateway.metricsUrl}/metrics`)).text();
    // Two jobs per set and search: the idf counts, then the votes.
    expect(jobsRun(metrics, 'collection_candidates_0-7')).toBe(2 * IMAGES);
    expect(jobsRun(metrics, 'collection_candidates_8-15')).toBe(2 * IMAGES);
  }, 180_000);

  it('forgets a deleted image and keeps the folder filter', async () => {
    const res = await call(sys, 'mobile', 'delete', { method: 'DELETE', query: { filepath: 'shelf/scene-10.jpg' } });
    expect(res.json.status, res.text).toBe('ok');
    expect(await topHit(sys, await crop(scenes[10]))).toBeUndefined();
    const filtered = await call(sys, 'mobile', 'search', { form: formWith([{ field: 'image', data: await crop(scenes[3]), filename: 'q.jpg' }], { path_filter: 'elsewhere' }) });
    expect(filtered.json.result).toEqual([]);
  }, 120_000);
});

const real = MODES.find((m) => m.name === 'real')!;

describe.skipIf(!real.enabled)('partitioned collections, real (two worker processes owning disjoint sets)', () => {
  let sys: TestSystem;
  let scenes: Buffer[];
  const workers: Array<{ app: ReturnType<typeof startApp>; port: number }> = [];

  beforeAll(async () => {
    sys = await startTestSystem('real', { COLLECTION_SHARD_SETS: SETS, RUN_WORKERS: 'false' });
    const env = { ...serversEnv(sys.config), COLLECTION_SHARD_SETS: SETS, VERIFY_THREADS: '0', SWEEP_INTERVAL_MINUTES: '0' };
    for (const queues of [[...ALL_JOB_KINDS, 'collection_candidates_0-7'].join(','), 'collection_candidates_8-15']) {
      const port = await freePort();
      workers.push({ app: startApp('worker', { ...env, WORKER_QUEUES: queues, METRICS_PORT: String(port) }), port });
    }
    for (const w of workers) await waitFor('a worker to start', () => w.app.output().includes('worker ready'), 90_000);
    scenes = await addScenes(sys);
  }, 300_000);

  afterAll(async () => {
    await Promise.all(workers.map((w) => killHard(w.app.child)));
    await sys?.destroy();
  });

  it('finds a crop of every image, those of shards 8-15 through the other process', async () => {
    for (let i = 0; i < IMAGES; i++) {
      expect(await topHit(sys, await crop(scenes[i])), workers.map((w) => w.app.output()).join('\n')).toBe(`shelf/scene-${i}.jpg`);
    }
    const [searcher, owner] = await Promise.all(workers.map(async (w) => (await fetch(`http://127.0.0.1:${w.port}/metrics`)).text()));
    expect(jobsRun(searcher, 'search')).toBe(IMAGES);
    expect(jobsRun(searcher, 'collection_candidates_0-7')).toBe(2 * IMAGES);
    expect(jobsRun(searcher, 'collection_candidates_8-15')).toBe(0);
    expect(jobsRun(owner, 'collection_candidates_8-15')).toBe(2 * IMAGES);
    expect(jobsRun(owner, 'collection_candidates_0-7')).toBe(0);
  }, 180_000);
});
