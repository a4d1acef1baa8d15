import { randomUUID } from 'node:crypto';
import { JobsOptions, Queue, QueueEvents } from 'bullmq';
import type { JobQueue, JobRequest, QueueCounts } from '../contracts';
import { DEADLINE_REASON, raceSignal, startDeadline } from '../deadline';
import { JobFailedError, JobTimeoutError, QueueErrorCode } from '../errors';
import type { QueuePolicy } from '../policy';
import { bullPrefix, DEFAULT_PREFIX, openRedis, type QueueWarning, redisOptions, warnOnStderr } from '../redis/connection';
import { createRedisSemaphore, ReleaseSlot } from '../redis/redis-semaphore';
import { JobData, JobOutcome, unwrapOutcome } from './job-outcome';
import { DEFAULT_PICKUP_TIMEOUT_MS, Lane, watchJob } from './job-watch';

/**
 * Finished jobs are kept this long (seconds) for inspection, then BullMQ drops them. The caller has its result by
 * then; keeping them forever would grow Redis with every request.
 */
const KEEP_FINISHED_S = 600;
const JOB_OPTIONS: JobsOptions = {
  removeOnComplete: { age: KEEP_FINISHED_S },
  removeOnFail: { age: KEEP_FINISHED_S },
};

/**
 * Gateway side: admission through the Redis fair semaphore, then one BullMQ queue per kind. The caller's slot is
 * held while its job waits in BullMQ and runs on a worker, and is given back when the outcome arrives.
 */
export function createBullQueue(opts: {
  redisUrl: string;
  prefix?: string;
  /** Each kind's admission class and the limits (classTablePolicy). */
  policy: QueuePolicy;
  kinds: string[];
  /** Admission lease; see DEFAULT_LEASE_MS. */
  leaseMs?: number;
  /** QUEUE_PICKUP_TIMEOUT_MS: a job no worker takes this long fails and is removed; 0 = wait for ever. */
  pickupTimeoutMs?: number;
  /** Where connection trouble is reported (the process's logger); standard error by default. */
  warn?: QueueWarning;
}): JobQueue {
  const warn = opts.warn ?? warnOnStderr;
  const pickupTimeoutMs = opts.pickupTimeoutMs ?? DEFAULT_PICKUP_TIMEOUT_MS;
  const prefix = opts.prefix ?? DEFAULT_PREFIX;
  const { policy } = opts;
  const connection = redisOptions(opts.redisUrl);
  const semaphore = createRedisSemaphore({ redisUrl: opts.redisUrl, prefix, leaseMs: opts.leaseMs, warn });
  const lanes = new Map<string, Lane>();
  // Lock probes of jobs whose worker may have died (see watchJob).
  const probe = openRedis(opts.redisUrl, 'queue', warn);
  for (const kind of opts.kinds) {
    const queue = new Queue<JobData, JobOutcome>(kind, { connection, prefix: bullPrefix(prefix) });
    const events = new QueueEvents(kind, { connection, prefix: bullPrefix(prefix) });
    // Connection errors are retried by ioredis; without listeners an 'error' event would crash the process.
    queue.on('error', (error) => warn(`[queue] queue "${kind}": ${error.message}`));
    // Every job being awaited adds a 'closing' listener to its queue, so hundreds are normal under load.
    queue.setMaxListeners(0);
    events.on('error', (error) => warn(`[queue] events "${kind}": ${error.message}`));
    lanes.set(kind, { queue, events, lockHeld: async (jobId) => (await probe.exists(`${queue.toKey(jobId)}:lock`)) === 1 });
  }
  let closed = false;

  async function run<R, P>(req: JobRequest<P>): Promise<R> {
    if (closed) throw new JobFailedError('the queue is closed', QueueErrorCode.QueueClosed);
    const lane = lanes.get(req.kind);
    if (!lane) throw new JobFailedError(`no queue for job kind "${req.kind}"`, QueueErrorCode.UnknownKind);
    const cls = policy.classOf(req.kind);
    const deadline = startDeadline(req.timeoutMs);
    let release: ReleaseSlot;
    try {
      release = await semaphore.acquire({ group: req.group, cls }, policy.limit(cls), deadline.signal);
    } catch (reason) {
      deadline.clear();
      if (reason === DEADLINE_REASON) throw new JobTimeoutError(req.timeoutMs ?? 0, 'queued');
      throw reason;
    }
    let slotOutlivesCall = false;
    try {
      const data: JobData = { payload: req.payload, group: req.group, requestId: req.requestId };
      // A random id, not BullMQ's counter: a Redis that restarts without its data starts the counter again, and a
      // caller still waiting on job 5 would be answered with the outcome of the new job 5 (another call's image).
      const job = await lane.queue.add(req.kind, data, { ...JOB_OPTIONS, jobId: randomUUID() });
      const watch = watchJob(job, lane, pickupTimeoutMs);
      const raced = await raceSignal(watch.ended, deadline.signal);
      if (raced.done) return unwrapOutcome(raced.value) as R;
      const cancelled = await watch.cancel();
      if (cancelled === 'removed') throw new JobTimeoutError(req.timeoutMs ?? 0, 'queued');
      // It ended while the budget ran out: the caller gets what really happened.
      if (cancelled === 'ended') return unwrapOutcome(await watch.ended) as R;
      // The job is running on a worker: its slot stays taken until it really ends (or is given up for lack of a
      // worker after its worker died), so the limit keeps holding.
      slotOutlivesCall = true;
      void watch.ended.catch(() => undefined).finally(release);
      throw new JobTimeoutError(req.timeoutMs ?? 0, 'running');
    } finally {
      deadline.clear();
      // Not awaited: the caller has its answer and the release cannot fail it (a lost release expires with the lease).
      if (!slotOutlivesCall) void release();
    }
  }

  return {
    run,
    async stats() {
      const counts: Record<string, QueueCounts> = await semaphore.counts(policy);
      for (const [kind, { queue }] of lanes) {
        const jobs = await queue.getJobCounts('waiting', 'prioritized', 'delayed', 'active');
        counts[`kind:${kind}`] = { waiting: jobs.waiting + jobs.prioritized + jobs.delayed, active: jobs.active };
      }
      return counts;
    },
    async close() {
      if (closed) return;
      closed = true;
      await semaphore.close();
      await Promise.all([...lanes.values()].flatMap(({ queue, events }) => [events.close(), queue.close()]));
      await probe.quit().catch(() => undefined);
    },
  };
}
