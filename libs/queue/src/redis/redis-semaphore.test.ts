import { afterAll, describe, expect, it } from 'vitest';
import { TEST_POLICY } from '../testing/test-policy';
import { sleep, waitUntil } from '../testing/concurrency-probe';
import { deleteKeys, killHard, randomPrefix, spawnFixture, TEST_REDIS_URL, waitForLine } from '../testing/redis-test-env';
import { createRedisSemaphore, RedisSemaphore } from './redis-semaphore';

const RELEASE_STEP_MS = 30;

describe.skipIf(!TEST_REDIS_URL)('Redis fair semaphore', () => {
  const prefix = randomPrefix();
  const open: RedisSemaphore[] = [];
  const gateway = (leaseMs?: number) => {
    const semaphore = createRedisSemaphore({ redisUrl: TEST_REDIS_URL, prefix, leaseMs });
    open.push(semaphore);
    return semaphore;
  };
  afterAll(async () => {
    await Promise.all(open.map((semaphore) => semaphore.close()));
    await deleteKeys(TEST_REDIS_URL, prefix);
  });

  it('admits in arrival order across two gateways and never more than the limit', async () => {
    const [a, b] = [gateway(), gateway()];
    const admitted: number[] = [];
    let held = 0;
    let maxHeld = 0;
    let allQueued = (_at: number) => undefined as void;
    const queued = new Promise<number>((resolve) => (allQueued = resolve));
    const jobs: Promise<void>[] = [];
    for (let i = 0; i < 8; i++) {
      const semaphore = i % 2 === 0 ? a : b;
      jobs.push(
        semaphore.acquire({ group: 'order', cls: 'read' }, 3).then(async (release) => {
          admitted.push(i);
          maxHeld = Math.max(maxHeld, ++held);
          const queuedAt = await queued;
          // Holders release one at a time, RELEASE_STEP_MS apart, so each release admits exactly one waiter and
          // the order of admissions is observable.
          await sleep(queuedAt + (i + 1) * RELEASE_STEP_MS - Date.now());
          held--;
          await release();
        }),
      );
      // Arrival order is the order tickets reach Redis: wait for each before sending the next through the other gateway.
      await waitUntil(async () => {
        const counts = (await a.counts(TEST_POLICY))['order/read'];
        return counts !== undefined && counts.active + counts.waiting === i + 1;
      });
    }
    allQueued(Date.now());
    await Promise.all(jobs);
    expect(maxHeld).toBe(3);
    expect(admitted).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('gives the place of a caller that gave up to the next one', async () => {
    const semaphore = gateway();
    const release = await semaphore.acquire({ group: 'abort', cls: 'write' }, 1);
    const controller = new AbortController();
    const quitter = semaphore.acquire({ group: 'abort', cls: 'write' }, 1, controller.signal);
    const next = semaphore.acquire({ group: 'abort', cls: 'write' }, 1);
    await sleep(20);
    controller.abort(new Error('gave up'));
    await expect(quitter).rejects.toThrow('gave up');
    await release();
    await (await next)();
  });

  it('counts holders and waiters of every gateway', async () => {
    const [a, b] = [gateway(), gateway()];
    const held = await a.acquire({ group: 'acme:wine', cls: 'write' }, 1);
    const waiting = b.acquire({ group: 'acme:wine', cls: 'write' }, 1);
    await sleep(20);
    expect((await a.counts(TEST_POLICY))['acme:wine/write']).toEqual({ active: 1, waiting: 1 });
    await held();
    await (await waiting)();
    expect((await a.counts(TEST_POLICY))['acme:wine/write']).toBeUndefined();
  });

  it('keeps a live gateway\'s slot past its lease and frees a crashed gateway\'s slot when the lease runs out', async () => {
    const leaseMs = 600;
    const crashing = spawnFixture('hold-slot.fixture.ts', [TEST_REDIS_URL, prefix, 'crash', String(leaseMs)]);
    try {
      await waitForLine(crashing, 'held');
      let admittedAt = 0;
      const survivor = gateway(leaseMs);
      const admitted = survivor.acquire({ group: 'crash', cls: 'write' }, 1).then((release) => {
        admittedAt = Date.now();
        return release;
      });
      // Two leases long: only the crashing gateway's heartbeat can have kept its slot.
      await sleep(leaseMs * 2);
      expect(admittedAt).toBe(0);
      const killedAt = Date.now();
      await killHard(crashing);
      await (await admitted)();
      const recoveryMs = admittedAt - killedAt;
      expect(recoveryMs).toBeLessThan(leaseMs + 600);
    } finally {
      await killHard(crashing);
    }
  });
});
