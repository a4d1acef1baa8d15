import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobQueue, WorkerHandle } from '../contracts';
import { JobFailedError, JobTimeoutError } from '../errors';
import { TEST_POLICY } from '../testing/test-policy';
import { createConcurrencyProbe, ids, waitUntil } from '../testing/concurrency-probe';
import { deleteKeys, killHard, randomPrefix, spawnFixture, TEST_REDIS_URL, waitForLine } from '../testing/redis-test-env';
import { createBullQueue } from './bull-queue';
import { startBullWorkers } from './bull-workers';

const JOB_MS = 150;
/** Spacing of the read jobs' ends: well above the scheduling jitter of a loaded two-core machine. */
const READ_STEP_MS = 40;

interface Work {
  id: string;
  ms?: number;
  fail?: string;
}

describe.skipIf(!TEST_REDIS_URL)('BullMQ queue: two gateways, two worker processes', () => {
  const prefix = randomPrefix();
  const probes = new Map([['main', createConcurrencyProbe()]]);
  const probe = (group: string) => {
    if (!probes.has(group)) probes.set(group, createConcurrencyProbe());
    return probes.get(group)!;
  };
  const work = async (payload: Work, ctx: { group: string }) => {
    if (payload.fail) throw Object.assign(new Error(payload.fail), { code: 'DUPLICATE' });
    return probe(ctx.group).work(payload.id, payload.ms ?? JOB_MS);
  };
  const processors = { search: work, ingest: work };
  let gateways: JobQueue[] = [];
  let workers: WorkerHandle[] = [];

  beforeAll(async () => {
    const kinds = ['search', 'ingest', 'delete'];
    gateways = [createBullQueue({ policy: TEST_POLICY, redisUrl: TEST_REDIS_URL, prefix, kinds }), createBullQueue({ policy: TEST_POLICY, redisUrl: TEST_REDIS_URL, prefix, kinds })];
    workers = await Promise.all([1, 2].map(() => startBullWorkers({ redisUrl: TEST_REDIS_URL, prefix, processors })));
    // Warm both gateways (script loading, subscriptions) so the first measured job is not slower than the rest.
    await Promise.all(gateways.map((gateway, i) => gateway.run({ kind: 'search', group: `warm${i}`, payload: { id: 'w', ms: 1 } })));
  });
  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.close()));
    await Promise.all(gateways.map((gateway) => gateway.close()));
    await deleteKeys(TEST_REDIS_URL, prefix);
  });

  /**
   * Submits jobs alternately through the two gateways with the group's gate closed, waiting for each ticket to
   * reach Redis (and each admitted job to start) before sending the next: that makes arrival order well defined
   * across the two connections. The caller opens the gate.
   */
  async function submitInOrder(kind: string, group: string, order: string[], limit: number, msOf: (i: number) => number): Promise<Promise<unknown>[]> {
    const groupProbe = probe(group);
    groupProbe.closeGate();
    const name = `${group}/${TEST_POLICY.classOf(kind)}`;
    const runs: Promise<unknown>[] = [];
    for (const [i, id] of order.entries()) {
      runs.push(gateways[i % 2].run({ kind, group, payload: { id, ms: msOf(i) } }));
      await waitUntil(async () => {
        const counts = (await gateways[0].stats())[name];
        return counts !== undefined && counts.active + counts.waiting === i + 1;
      });
      if (i < limit) await waitUntil(() => groupProbe.starts.length === i + 1);
    }
    return runs;
  }

  it('runs at most 4 reads of a group at once across gateways and workers, starting them in arrival order', async () => {
    const order = ids('s', 10);
    // Job i ends (i + 1) steps after the gate opens: one release at a time, so each admits exactly one waiter and
    // the start order of the waiters is observable. Each job runs about four steps (~160 ms).
    const runs = await submitInOrder('search', 'acme:wine', order, 4, (i) => (i < 4 ? i + 1 : 4) * READ_STEP_MS);
    expect(await gateways[0].stats()).toMatchObject({ 'acme:wine/read': { active: 4, waiting: 6 } });
    // While the first group holds its four slots and six callers wait, another group gets through.
    const other = ids('o', 4);
    expect(await Promise.all(other.map((id) => gateways[1].run({ kind: 'search', group: 'zeta:wine', payload: { id } })))).toEqual(other);
    expect(probe('zeta:wine').maxRunning).toBe(4);
    expect(probe('acme:wine').starts).toEqual(order.slice(0, 4));
    probe('acme:wine').openGate();
    expect(await Promise.all(runs)).toEqual(order);
    expect(probe('acme:wine').maxRunning).toBe(4);
    expect(probe('acme:wine').starts).toEqual(order);
  });

  it('runs writes of a group one at a time across gateways and workers, completing in arrival order', async () => {
    const order = ids('w', 10);
    const runs = await submitInOrder('ingest', 'acme:color', order, 1, () => JOB_MS);
    expect(await gateways[1].run({ kind: 'ingest', group: 'zeta:color', payload: { id: 'z' } })).toBe('z');
    expect(probe('acme:color').ends).toEqual([]);
    probe('acme:color').openGate();
    expect(await Promise.all(runs)).toEqual(order);
    expect(probe('acme:color').maxRunning).toBe(1);
    expect(probe('acme:color').ends).toEqual(order);
  });

  it('times out a job waiting for admission, frees its place, and runs the jobs behind it', async () => {
    const first = gateways[0].run({ kind: 'ingest', group: 'tq', payload: { id: 'first', ms: 400 } });
    await waitUntil(() => probe('tq').starts.length === 1);
    const doomed = gateways[1].run({ kind: 'ingest', group: 'tq', payload: { id: 'doomed' }, timeoutMs: 150 });
    await waitUntil(async () => (await gateways[0].stats())['tq/write']?.waiting === 1);
    const last = gateways[0].run({ kind: 'ingest', group: 'tq', payload: { id: 'last', ms: 10 } });
    await expect(doomed).rejects.toThrow(new JobTimeoutError(150, 'queued'));
    await expect(doomed).rejects.toThrow('The request timed out after 0.15 s (still queued)');
    expect(await Promise.all([first, last])).toEqual(['first', 'last']);
    expect(probe('tq').starts).toEqual(['first', 'last']);
  });

  it('times out a running job but keeps its slot until the worker finishes it', async () => {
    const slow = gateways[0].run({ kind: 'ingest', group: 'tr', payload: { id: 'slow', ms: 600 }, timeoutMs: 250 });
    await waitUntil(() => probe('tr').starts.length === 1);
    const next = gateways[1].run({ kind: 'ingest', group: 'tr', payload: { id: 'next', ms: 10 } });
    await expect(slow).rejects.toThrow('The request timed out after 0.25 s (still running)');
    expect(await next).toBe('next');
    expect(probe('tr').ends).toEqual(['slow', 'next']);
    expect(probe('tr').maxRunning).toBe(1);
  });

  it('times out a job no worker picks up and takes it out of BullMQ', async () => {
    // No worker serves "delete" here, so the job is admitted and then waits in BullMQ.
    const error = await gateways[0].run({ kind: 'delete', group: 'tn', payload: {}, timeoutMs: 150 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JobTimeoutError);
    expect((error as Error).message).toContain('(still queued)');
    const stats = await gateways[1].stats();
    expect(stats['kind:delete']).toEqual({ waiting: 0, active: 0 });
    expect(stats['tn/write']).toBeUndefined();
  });

  it('carries a processor error with its message and code back to the caller', async () => {
    const error = await gateways[1].run({ kind: 'ingest', group: 'err', payload: { id: 'x', fail: 'filepath already exists' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JobFailedError);
    expect(error).toMatchObject({ message: 'filepath already exists', code: 'DUPLICATE' });
  });
});

describe.skipIf(!TEST_REDIS_URL)('BullMQ queue: worker crash', () => {
  const prefix = randomPrefix();
  const stalledIntervalMs = 500;

  it('finishes a job whose worker process was killed mid-job once a new worker starts', async () => {
    const gateway = createBullQueue({ policy: TEST_POLICY, redisUrl: TEST_REDIS_URL, prefix, kinds: ['ingest'] });
    const crashing = spawnFixture('stuck-worker.fixture.ts', [TEST_REDIS_URL, prefix, String(stalledIntervalMs)]);
    let replacement: WorkerHandle | undefined;
    try {
      await waitForLine(crashing, 'ready');
      const started = waitForLine(crashing, 'started');
      const result = gateway.run({ kind: 'ingest', group: 'crash', payload: { id: 'c' } });
      await started;
      await killHard(crashing);
      const killedAt = Date.now();
      replacement = await startBullWorkers({
        redisUrl: TEST_REDIS_URL,
        prefix,
        stalledIntervalMs,
        processors: { ingest: async (payload: Work, ctx) => ({ id: payload.id, attempt: ctx.attempt }) },
      });
      expect(await result).toEqual({ id: 'c', attempt: 2 });
      // Lock expiry plus two stall checks, with slack for a loaded machine.
      expect(Date.now() - killedAt).toBeLessThan(stalledIntervalMs * 3 + 1_000);
    } finally {
      await killHard(crashing);
      await replacement?.close();
      await gateway.close();
      await deleteKeys(TEST_REDIS_URL, prefix);
    }
  });
});
