import { describe, expect, it } from 'vitest';
import type { WorkerHandle } from '../contracts';
import { JobFailedError, QueueErrorCode } from '../errors';
import { sleep, waitUntil } from '../testing/concurrency-probe';
import { deleteKeys, killHard, randomPrefix, spawnFixture, TEST_REDIS_URL, waitForLine } from '../testing/redis-test-env';
import { createBullQueue } from './bull-queue';
import { startBullWorkers } from './bull-workers';
import { TEST_POLICY } from '../testing/test-policy';

/** Settles with the promise's outcome, or with 'still waiting' once `ms` has passed: a broken fix cannot hang the test. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | Error | 'still waiting'> {
  return Promise.race([promise.catch((error: Error) => error), sleep(ms).then(() => 'still waiting' as const)]);
}

describe.skipIf(!TEST_REDIS_URL)('BullMQ: dead and missing workers', () => {
  it('retries the job of a worker killed mid-job within 15 s, with the default lock and stall timing', async () => {
    const prefix = randomPrefix();
    const gateway = createBullQueue({ policy: TEST_POLICY, redisUrl: TEST_REDIS_URL, prefix, kinds: ['ingest'] });
    const crashing = spawnFixture('stuck-worker.fixture.ts', [TEST_REDIS_URL, prefix, 'default']);
    let survivor: WorkerHandle | undefined;
    try {
      await waitForLine(crashing, 'ready');
      const started = waitForLine(crashing, 'started');
      const result = gateway.run({ kind: 'ingest', group: 'acme:mobile', payload: { id: 'c' } });
      await started;
      // Another worker is already running when the first dies, as in a deployment with replicas.
      survivor = await startBullWorkers({
        redisUrl: TEST_REDIS_URL,
        prefix,
        processors: { ingest: async (payload: { id: string }, ctx) => ({ id: payload.id, attempt: ctx.attempt }) },
      });
      await killHard(crashing);
      const killedAt = Date.now();
      expect(await within(result, 15_000)).toEqual({ id: 'c', attempt: 2 });
      console.log(`dead worker's job retried and done ${((Date.now() - killedAt) / 1000).toFixed(1)} s after the kill`);
    } finally {
      await killHard(crashing);
      await survivor?.close();
      await gateway.close();
      await deleteKeys(TEST_REDIS_URL, prefix);
    }
  }, 30_000);

  it('keeps the lock of a job that runs for many lock durations: it runs once and is not restarted', async () => {
    const prefix = randomPrefix();
    const gateway = createBullQueue({ policy: TEST_POLICY, redisUrl: TEST_REDIS_URL, prefix, kinds: ['ingest'] });
    let runs = 0;
    // Lock 600 ms, renewed every 150 ms; the job takes 2.5 s.
    const workers = await Promise.all(
      [1, 2].map(() =>
        startBullWorkers({
          redisUrl: TEST_REDIS_URL,
          prefix,
          stalledIntervalMs: 300,
          processors: {
            ingest: async (_payload: unknown, ctx) => {
              runs++;
              await sleep(2_500);
              return ctx.attempt;
            },
          },
        }),
      ),
    );
    try {
      expect(await gateway.run({ kind: 'ingest', group: 'long', payload: {} })).toBe(1);
      expect(runs).toBe(1);
    } finally {
      await Promise.all(workers.map((w) => w.close()));
      await gateway.close();
      await deleteKeys(TEST_REDIS_URL, prefix);
    }
  });

  it('fails a job no worker takes within the pickup deadline, and it never runs when a worker starts later', async () => {
    const prefix = randomPrefix();
    const gateway = createBullQueue({ policy: TEST_POLICY, redisUrl: TEST_REDIS_URL, prefix, kinds: ['ingest'], pickupTimeoutMs: 1_000 });
    let worker: WorkerHandle | undefined;
    const ran: string[] = [];
    try {
      const startedAt = Date.now();
      const error = await within(gateway.run({ kind: 'ingest', group: 'acme:mobile', payload: { id: 'orphan' } }), 10_000);
      const waited = Date.now() - startedAt;
      expect(error).toBeInstanceOf(JobFailedError);
      expect(error).toMatchObject({ code: QueueErrorCode.NoWorker, message: 'No worker took the job within 1 s; nothing was changed.' });
      expect(waited).toBeGreaterThanOrEqual(1_000);
      expect(await gateway.stats()).toMatchObject({ 'kind:ingest': { waiting: 0, active: 0 } });
      worker = await startBullWorkers({
        redisUrl: TEST_REDIS_URL,
        prefix,
        processors: { ingest: async (payload: { id: string }) => void ran.push(payload.id) },
      });
      // A job sent now runs at once, so the worker is taking jobs; the removed one never comes.
      expect(await gateway.run({ kind: 'ingest', group: 'acme:mobile', payload: { id: 'later' } })).toBeUndefined();
      await sleep(1_000);
      expect(ran).toEqual(['later']);
    } finally {
      await worker?.close();
      await gateway.close();
      await deleteKeys(TEST_REDIS_URL, prefix);
    }
  });

  it('gives up the job of a worker killed with no other worker alive, freeing its admission slot', async () => {
    const prefix = randomPrefix();
    const gateway = createBullQueue({ policy: TEST_POLICY, redisUrl: TEST_REDIS_URL, prefix, kinds: ['ingest'], pickupTimeoutMs: 1_000 });
    const crashing = spawnFixture('stuck-worker.fixture.ts', [TEST_REDIS_URL, prefix, '300']);
    let worker: WorkerHandle | undefined;
    const ran: string[] = [];
    try {
      await waitForLine(crashing, 'ready');
      const started = waitForLine(crashing, 'started');
      const first = gateway.run({ kind: 'ingest', group: 'acme:mobile', payload: { id: 'first' } });
      await started;
      // The next write of the account waits for the dead worker's slot.
      const second = gateway.run({ kind: 'ingest', group: 'acme:mobile', payload: { id: 'second' } });
      await waitUntil(async () => (await gateway.stats())['acme:mobile/write']?.waiting === 1);
      await killHard(crashing);
      expect(await within(first, 15_000)).toMatchObject({
        code: QueueErrorCode.NoWorker,
        message: 'The worker running this job stopped and no other worker took it within 1 s; it may have been partly done.',
      });
      // The slot came free: the second call was admitted, queued, and given up in turn.
      expect(await within(second, 15_000)).toMatchObject({ code: QueueErrorCode.NoWorker, message: 'No worker took the job within 1 s; nothing was changed.' });
      expect((await gateway.stats())['acme:mobile/write']).toBeUndefined();
      worker = await startBullWorkers({ redisUrl: TEST_REDIS_URL, prefix, processors: { ingest: async (payload: { id: string }) => void ran.push(payload.id) } });
      await sleep(1_500);
      expect(ran).toEqual([]);
    } finally {
      await killHard(crashing);
      await worker?.close();
      await gateway.close();
      await deleteKeys(TEST_REDIS_URL, prefix);
    }
  }, 40_000);
});
