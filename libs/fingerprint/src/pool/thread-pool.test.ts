import { afterAll, describe, expect, it } from 'vitest';
import { extractFeatures } from '../features';
import { serializeFeatures } from '../features-codec';
import { verifyInThisThread } from '../verify-batch';
import { runInThisThread, ThreadPool } from './thread-pool';
import { verifyOnThreads } from './verify-task';
import { cropBox, crop } from '../testing/edits';
import { syntheticImage, toGray } from '../testing/synthetic-images';
import { crashTask, runCountTask, threadIdTask } from './testing-tasks';

describe('thread pool', () => {
  const pool = new ThreadPool(2);
  afterAll(() => pool.close());

  it('verifies on its threads with the same verdicts as this thread, in the targets order', async () => {
    const targets = await Promise.all([1, 2, 3].map((seed) => syntheticImage(seed)));
    const query = await extractFeatures(toGray(await crop(targets[1], cropBox(targets[1], 0.5))));
    const targetFeatures = await Promise.all(targets.map((t) => extractFeatures(toGray(t))));
    const stored = targetFeatures.map(serializeFeatures);
    const pooled = await verifyOnThreads(pool)(query, stored, {});
    expect(pooled.map((r) => r !== null)).toEqual([false, true, false]);
    expect(pooled).toEqual(await verifyInThisThread(query, stored, {}));
  }, 60_000);

  it('runs tasks on every thread at once, and queues the rest', async () => {
    const ids = await Promise.all(Array.from({ length: 6 }, () => pool.run(threadIdTask, { holdMs: 150 })));
    expect(new Set(ids).size).toBe(2);
  }, 60_000);

  it('runs a task ahead only on a thread that is free now, never ahead of queued work', async () => {
    const small = new ThreadPool(2);
    try {
      const busy = small.run(threadIdTask, { holdMs: 300 });
      const ahead = small.runIfIdle(threadIdTask, { holdMs: 300 });
      expect(ahead, 'one of two threads was free').not.toBeNull();
      expect(small.runIfIdle(threadIdTask, { holdMs: 0 }), 'both threads busy').toBeNull();
      const queued = small.run(threadIdTask, { holdMs: 0 });
      const ids = await Promise.all([busy, ahead!, queued]);
      expect(new Set(ids.slice(0, 2)).size).toBe(2);
      expect(await small.runIfIdle(threadIdTask, { holdMs: 0 }), 'free again').toBeGreaterThan(0);
    } finally {
      await small.close();
    }
    expect(small.runIfIdle(threadIdTask, { holdMs: 0 }), 'closed').toBeNull();
  }, 60_000);

  it('withdraws a queued task whose signal aborts before its turn: it never runs, and fails with the reason', async () => {
    const single = new ThreadPool(1);
    try {
      const busy = single.run(runCountTask, { holdMs: 300 });
      const answered = new AbortController();
      const withdrawn = single.run(runCountTask, { holdMs: 0 }, answered.signal);
      const next = single.run(runCountTask, { holdMs: 0 });
      answered.abort(new Error('answered'));
      await expect(withdrawn).rejects.toThrow('answered');
      expect(await busy).toBe(1);
      expect(await next, 'the second task the thread ran').toBe(2);
      await expect(single.run(runCountTask, { holdMs: 0 }, answered.signal), 'asked after the abort').rejects.toThrow('answered');
      expect(await single.run(runCountTask, { holdMs: 0 }, new AbortController().signal)).toBe(3);
    } finally {
      await single.close();
    }
    await expect(runInThisThread(runCountTask, { holdMs: 0 }, AbortSignal.abort(new Error('answered'))), 'nor in the calling thread').rejects.toThrow('answered');
  }, 60_000);

  it('fails the task of a thread that dies, and runs the next ones on a fresh thread', async () => {
    const fragile = new ThreadPool(1);
    try {
      const dying = fragile.run(crashTask, {});
      const queued = fragile.run(threadIdTask, { holdMs: 0 });
      await expect(dying).rejects.toThrow(/pool thread stopped \(exit code 7\)/);
      expect(await queued).toBeGreaterThan(0);
    } finally {
      await fragile.close();
    }
  }, 60_000);

  it('refuses work once closed, and fails what was waiting', async () => {
    const spare = new ThreadPool(1);
    const waiting = Promise.allSettled([spare.run(threadIdTask, { holdMs: 500 }), spare.run(threadIdTask, { holdMs: 0 })]);
    await spare.close();
    const outcomes = await waiting;
    expect(outcomes.map((o) => o.status === 'rejected' && String(o.reason))).toEqual(['Error: The thread pool was closed.', 'Error: The thread pool was closed.']);
    await expect(spare.run(threadIdTask, { holdMs: 0 })).rejects.toThrow(/closed/);
  }, 60_000);
});
