import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { computeThreads, computeThreadsFromEnv, IN_THIS_THREAD } from './compute';
import { prepareImage, prepareImageTask } from './image-preparation';

describe('compute threads', () => {
  it('are sized by COMPUTE_THREADS, then by its former name VERIFY_THREADS, else by the cores (at most 4)', () => {
    expect(computeThreadsFromEnv({ COMPUTE_THREADS: '3', VERIFY_THREADS: '1' })).toBe(3);
    expect(computeThreadsFromEnv({ VERIFY_THREADS: '0' })).toBe(0);
    expect(computeThreadsFromEnv({})).toBe(Math.min(4, availableParallelism()));
    expect(() => computeThreadsFromEnv({ COMPUTE_THREADS: 'two' })).toThrow(/COMPUTE_THREADS must be a whole number/);
    expect(() => computeThreadsFromEnv({ COMPUTE_THREADS: '-1' })).toThrow(/COMPUTE_THREADS/);
  });

  it('with none, run in the calling thread one at a time', () => {
    expect(computeThreads(0)).toBe(IN_THIS_THREAD);
    expect(IN_THIS_THREAD.parallelism).toBe(1);
  });

  it('start on the first task, answer what the calling thread answers, and close twice without harm', async () => {
    const compute = computeThreads(1);
    try {
      const request = { data: Buffer.from('not an image'), preferredSide: 600, cropBorders: true };
      expect(await compute.run(prepareImageTask, request)).toEqual(await prepareImage(request));
    } finally {
      await compute.close();
    }
    await compute.close();
  }, 60_000);
});
