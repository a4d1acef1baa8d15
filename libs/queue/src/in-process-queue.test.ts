import { describe, expect, it } from 'vitest';
import { JobFailedError, JobTimeoutError } from './errors';
import { createInProcessQueue } from './in-process-queue';
import { createConcurrencyProbe, ids, sleep } from './testing/concurrency-probe';
import { TEST_POLICY } from './testing/test-policy';

const JOB_MS = 150;

function probeQueue() {
  const probe = createConcurrencyProbe();
  const other = createConcurrencyProbe();
  const work = (payload: { id: string; ms?: number; group?: string }) =>
    (payload.group === 'other' ? other : probe).work(payload.id, payload.ms ?? JOB_MS);
  const queue = createInProcessQueue({ policy: TEST_POLICY, processors: { search: work, ingest: work } });
  return { probe, other, queue };
}

describe('in-process queue admission', () => {
  it('runs at most 4 reads of a group at once, starting them in arrival order', async () => {
    const { probe, queue } = probeQueue();
    const order = ids('s', 10);
    const results = await Promise.all(order.map((id) => queue.run({ kind: 'search', group: 'acme:wine', payload: { id } })));
    expect(results).toEqual(order);
    expect(probe.maxRunning).toBe(4);
    expect(probe.starts).toEqual(order);
    await queue.close();
  });

  it('runs writes of a group one at a time, completing in arrival order', async () => {
    const { probe, queue } = probeQueue();
    const order = ids('w', 10);
    await Promise.all(order.map((id) => queue.run({ kind: 'ingest', group: 'acme:wine', payload: { id } })));
    expect(probe.maxRunning).toBe(1);
    expect(probe.ends).toEqual(order);
    await queue.close();
  });

  it('lets another group run while the first group is queued', async () => {
    const { probe, other, queue } = probeQueue();
    const started = Date.now();
    const busy = ids('w', 6).map((id) => queue.run({ kind: 'ingest', group: 'acme:wine', payload: { id } }));
    await sleep(10);
    await queue.run({ kind: 'ingest', group: 'zeta:wine', payload: { id: 'z', group: 'other' } });
    // One job's time plus slack: far less than the six jobs queued in the first group.
    expect(Date.now() - started).toBeLessThan(JOB_MS * 2);
    expect(probe.running).toBe(1);
    expect(other.maxRunning).toBe(1);
    await Promise.all(busy);
    await queue.close();
  });

  it('keeps reads and writes of one group in separate queues', async () => {
    const { probe, queue } = probeQueue();
    await Promise.all([
      ...ids('w', 2).map((id) => queue.run({ kind: 'ingest', group: 'g', payload: { id } })),
      ...ids('s', 4).map((id) => queue.run({ kind: 'search', group: 'g', payload: { id } })),
    ]);
    expect(probe.maxRunning).toBe(5);
    await queue.close();
  });
});

describe('in-process queue failures', () => {
  it('times out a queued job, frees its place, and still runs the jobs behind it', async () => {
    const { probe, queue } = probeQueue();
    const first = queue.run({ kind: 'ingest', group: 'g', payload: { id: 'first' } });
    const doomed = queue.run({ kind: 'ingest', group: 'g', payload: { id: 'doomed' }, timeoutMs: 50 });
    const last = queue.run({ kind: 'ingest', group: 'g', payload: { id: 'last' } });
    await expect(doomed).rejects.toThrow(new JobTimeoutError(50, 'queued'));
    await expect(doomed).rejects.toThrow('The request timed out after 0.05 s (still queued)');
    expect(await first).toBe('first');
    expect(await last).toBe('last');
    expect(probe.starts).toEqual(['first', 'last']);
    expect(await queue.stats()).toEqual({ 'kind:ingest': { waiting: 0, active: 0 } });
    await queue.close();
  });

  it('times out a running job but keeps its slot until the processor really ends', async () => {
    const { probe, queue } = probeQueue();
    const slow = queue.run({ kind: 'ingest', group: 'g', payload: { id: 'slow', ms: 200 }, timeoutMs: 50 });
    const next = queue.run({ kind: 'ingest', group: 'g', payload: { id: 'next', ms: 10 } });
    const error = await slow.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JobTimeoutError);
    expect((error as Error).message).toBe('The request timed out after 0.05 s (still running)');
    expect(probe.starts).toEqual(['slow']);
    await next;
    expect(probe.ends).toEqual(['slow', 'next']);
    expect(probe.maxRunning).toBe(1);
    await queue.close();
  });

  it('reports a processor error as JobFailedError with its message and code', async () => {
    const queue = createInProcessQueue({
      policy: TEST_POLICY,
      processors: {
        ingest: async () => {
          throw Object.assign(new Error('filepath already exists'), { code: 'DUPLICATE' });
        },
      },
    });
    const error = await queue.run({ kind: 'ingest', group: 'g', payload: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JobFailedError);
    expect(error).toMatchObject({ message: 'filepath already exists', code: 'DUPLICATE' });
    await queue.close();
  });

  it('refuses a kind without a processor', async () => {
    const queue = createInProcessQueue({ policy: TEST_POLICY, processors: {} });
    await expect(queue.run({ kind: 'nope', group: 'g', payload: {} })).rejects.toMatchObject({ code: 'UNKNOWN_KIND' });
    await queue.close();
  });

  it('passes payloads and results as JSON, like the Redis adapter would', async () => {
    const queue = createInProcessQueue({
      policy: TEST_POLICY,
      processors: { search: async (payload: { at: Date }, ctx) => ({ seen: typeof payload.at, ctx, when: new Date(0) }) },
    });
    const result = await queue.run({ kind: 'search', group: 'g', payload: { at: new Date(0) }, requestId: 'r1' });
    expect(result).toEqual({
      seen: 'string',
      ctx: { kind: 'search', group: 'g', requestId: 'r1', attempt: 1 },
      when: '1970-01-01T00:00:00.000Z',
    });
    await queue.close();
  });

  it('rejects callers still waiting when the queue closes', async () => {
    const { queue } = probeQueue();
    const running = queue.run({ kind: 'ingest', group: 'g', payload: { id: 'a', ms: 30 } });
    const waiting = queue.run({ kind: 'ingest', group: 'g', payload: { id: 'b' } });
    await queue.close();
    await expect(waiting).rejects.toMatchObject({ code: 'QUEUE_CLOSED' });
    await running;
  });
});
