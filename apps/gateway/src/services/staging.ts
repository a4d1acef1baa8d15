import { JobTimeoutError } from '@loupe/queue';

/**
 * Cleans up staged inputs after a job call failed, unless the job is still running: a caller whose `timeout`
 * expired while its job runs must leave the staged blobs to the job, which deletes them itself when it ends.
 */
export async function releaseStaged(error: unknown, discard: () => Promise<unknown>): Promise<void> {
  if (error instanceof JobTimeoutError && error.phase === 'running') return;
  await discard();
}
