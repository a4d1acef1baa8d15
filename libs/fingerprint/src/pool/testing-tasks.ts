import { threadId } from 'node:worker_threads';
import { defineTask } from './thread-pool';

/** Tasks the pool's tests run: which thread ran them (after holding it for a while), and a thread that dies. */
export const threadIdTask = defineTask(__filename, 'threadIdTask', async ({ holdMs }: { holdMs: number }) => {
  await new Promise((resolve) => setTimeout(resolve, holdMs));
  return threadId;
});

export const crashTask = defineTask(__filename, 'crashTask', (): never => process.exit(7));

let runs = 0;
/** How many times this thread has run it, this run included (after holding the thread for a while). */
export const runCountTask = defineTask(__filename, 'runCountTask', async ({ holdMs }: { holdMs: number }) => {
  const run = ++runs;
  await new Promise((resolve) => setTimeout(resolve, holdMs));
  return run;
});

/** Writes `value` into the first of `bytes`: whether the caller then reads it tells shared memory from a copy. */
export const writeFirstByteTask = defineTask(__filename, 'writeFirstByteTask', ({ bytes, value }: { bytes: Uint8Array; value: number }) => {
  bytes[0] = value;
});
