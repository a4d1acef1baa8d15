import { noSpareThread, runInThisThread, SpareRunner, TaskRunner, ThreadPool, verifyInThisThread, VerifyBatch, verifyOnThreads, VoteThread } from '@loupe/fingerprint';
import { availableParallelism } from 'node:os';

/** Where a process's CPU-heavy work runs: image preparation and hook analyses (`run`), search verification. */
export interface Compute {
  run: TaskRunner;
  /** `run` on a thread that is free now, else not at all: work done ahead on the chance it is needed. */
  runOnSpareThread: SpareRunner;
  verifyAll: VerifyBatch;
  /** A thread that reads half of each large collection vote beside the calling thread; null without threads. */
  voteThread: VoteThread | null;
  /** How many tasks run at once: ingest prepares that many images of a batch concurrently. */
  readonly parallelism: number;
  close(): Promise<void>;
}

/** Everything in the calling thread, one task at a time: tests, and processes told to use no threads. */
export const IN_THIS_THREAD: Compute = { run: runInThisThread, runOnSpareThread: noSpareThread, verifyAll: verifyInThisThread, voteThread: null, parallelism: 1, close: async () => undefined };

/** Threads when the configuration names none (COMPUTE_THREADS): one per core, at most 4, as each holds its own OpenCV (~300 MB). */
export function defaultComputeThreads(): number {
  return Math.min(4, availableParallelism());
}

/**
 * A pool of `size` threads, started by the first task, so a process that never adds or searches never
 * pays for it; `size` 0 is IN_THIS_THREAD.
 */
export function computeThreads(size: number = defaultComputeThreads()): Compute {
  if (size === 0) return IN_THIS_THREAD;
  let pool: ThreadPool | null = null;
  const started = () => (pool ??= new ThreadPool(size));
  // Starts its thread with the first vote large enough to share (400,000 postings: a collection of about 25,000 images).
  const voteThread = new VoteThread();
  return {
    run: (task, input, signal) => started().run(task, input, signal),
    runOnSpareThread: (task, input) => started().runIfIdle(task, input),
    verifyAll: (query, targets, options) => verifyOnThreads(started())(query, targets, options),
    voteThread,
    parallelism: size,
    close: async () => {
      await Promise.all([pool?.close(), voteThread.close()]);
      pool = null;
    },
  };
}
