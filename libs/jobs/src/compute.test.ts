import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { computeThreads, defaultComputeThreads, IN_THIS_THREAD } from './compute';
import { prepareImage, prepareImageTask } from './image-preparation';

describe('compute threads', () => {
  it('default to one per core, at most 4', () => {
    expect(defaultComputeThreads()).toBe(Math.min(4, availableParallelism()));
    expect(computeThreads().parallelism).toBe(defaultComputeThreads());
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
