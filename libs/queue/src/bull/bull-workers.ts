import { Job, Worker } from 'bullmq';
import type { JobContext, ProcessorMap, WorkerHandle } from '../contracts';
import { toJobFailedError } from '../errors';
import { bullPrefix, DEFAULT_PREFIX, type QueueWarning, redisOptions, warnOnStderr } from '../redis/connection';
import { failed, JobData, JobOutcome, succeeded } from './job-outcome';

/**
 * Jobs one worker process runs at once per kind. Admission already caps each group; this caps the process. Four
 * lets a single worker serve a full read queue of one group (docs/protocol.md §4).
 */
const DEFAULT_CONCURRENCY = 4;
/**
 * How often active jobs are checked for a lost lock. A job's lock lives two intervals and is renewed every half
 * interval, and BullMQ moves a job back to waiting at the first check after its lock expired (the check before
 * marked it): a dead worker's job is retried at most 3 intervals (9 s) after the death, leaving room under the 15 s
 * promise on a loaded machine (4 s intervals measured up to 14.2 s in the worker-kill fault suite). BullMQ's defaults
 * (30 s each) took up to 90 s. A live worker loses a lock only when its event loop stalls for 1.5 intervals (4.5 s);
 * the image work runs in sharp's threads and the verification/OCR pools, not on the event loop.
 */
const DEFAULT_STALLED_INTERVAL_MS = 3_000;
/**
 * A job whose worker died is restarted once. A job that kills its worker twice is more likely the cause than the
 * victim, so it fails instead of taking down the next worker too.
 */
const MAX_STALLED_RESTARTS = 1;

export async function startBullWorkers(opts: {
  redisUrl: string;
  prefix?: string;
  processors: ProcessorMap;
  kinds?: string[];
  concurrency?: number;
  /** Kinds that take another number of jobs at once than `concurrency`. */
  concurrencyOf?: Record<string, number>;
  stalledIntervalMs?: number;
  /** Where connection trouble is reported (the process's logger); standard error by default. */
  warn?: QueueWarning;
}): Promise<WorkerHandle> {
  const warn = opts.warn ?? warnOnStderr;
  const kinds = opts.kinds ?? Object.keys(opts.processors);
  const missing = kinds.filter((kind) => !opts.processors[kind]);
  if (missing.length > 0) throw new Error(`no processor for job kinds: ${missing.join(', ')}`);
  const stalledInterval = opts.stalledIntervalMs ?? DEFAULT_STALLED_INTERVAL_MS;
  const workers = kinds.map((kind) => {
    const processor = opts.processors[kind];
    const worker = new Worker<JobData, JobOutcome>(
      kind,
      async (job: Job<JobData, JobOutcome>) => {
        const ctx: JobContext = { kind, group: job.data.group, requestId: job.data.requestId, attempt: job.attemptsStarted };
        try {
          return succeeded(await processor(job.data.payload, ctx));
        } catch (thrown) {
          return failed(toJobFailedError(thrown));
        }
      },
      {
        connection: redisOptions(opts.redisUrl),
        prefix: bullPrefix(opts.prefix ?? DEFAULT_PREFIX),
        concurrency: opts.concurrencyOf?.[kind] ?? opts.concurrency ?? DEFAULT_CONCURRENCY,
        stalledInterval,
        lockDuration: 2 * stalledInterval,
        lockRenewTime: stalledInterval / 2,
        maxStalledCount: MAX_STALLED_RESTARTS,
      },
    );
    // Connection errors are retried by ioredis; without a listener an 'error' event would crash the process.
    worker.on('error', (error) => warn(`[queue] worker "${kind}": ${error.message}`));
    return worker;
  });
  await Promise.all(workers.map((worker) => worker.waitUntilReady()));
  return {
    async close() {
      await Promise.all(workers.map((worker) => worker.close()));
    },
  };
}
