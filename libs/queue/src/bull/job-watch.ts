import { Job, Queue, QueueEvents } from 'bullmq';
import type { EventEmitter } from 'node:events';
import { JobFailedError, QueueErrorCode } from '../errors';
import { JobData, JobOutcome } from './job-outcome';

export interface Lane {
  queue: Queue<JobData, JobOutcome>;
  events: QueueEvents;
  /** Whether a worker holds the job's lock (BullMQ keeps it at `<job key>:lock` while the worker renews it). */
  lockHeld(jobId: string): Promise<boolean>;
}

/** QUEUE_PICKUP_TIMEOUT_MS's default: far above a busy queue's normal wait, far below a client's patience. */
export const DEFAULT_PICKUP_TIMEOUT_MS = 30_000;
/**
 * Events can be missed (a reconnect to Redis, a trimmed event stream), so a job's state is also read at least this
 * often. Well under the 600 s finished jobs are kept, so a missed completion is still found with its result.
 */
const RECHECK_MS = 30_000;

/** States of a job that no worker holds and that a worker would take next. */
const UNCLAIMED = new Set(['waiting', 'prioritized', 'delayed', 'paused', 'wait']);

export type CancelOutcome = 'removed' | 'running' | 'ended';

export interface JobWatch {
  /** The worker's outcome; rejects with a JobFailedError when BullMQ failed the job, lost it, or gave it up. */
  readonly ended: Promise<JobOutcome>;
  /**
   * Takes the job out of the queue unless a worker holds it: 'removed' (it will never run, `ended` never settles
   * otherwise than by this), 'running' (the watch goes on) or 'ended' (`ended` is settled).
   */
  cancel(): Promise<CancelOutcome>;
}

/**
 * Follows one job until it ends. With `pickupMs` > 0, a job that waits that long with no worker taking it, when
 * queued or after its worker died, is removed and fails: otherwise its caller would hang until it gives up and the
 * job could still run, and commit, whenever a worker appears. Removing is BullMQ's `remove`, which refuses a job a
 * worker holds the lock of (atomically, in Redis), so a job is either taken by a worker or removed, never both.
 */
export function watchJob(job: Job<JobData, JobOutcome>, lane: Lane, pickupMs: number): JobWatch {
  const id = job.id!;
  let settle!: (outcome: { ok: true; value: JobOutcome } | { ok: false; error: JobFailedError }) => void;
  let done = false;
  const ended = new Promise<JobOutcome>((resolve, reject) => {
    settle = (outcome) => {
      if (done) return;
      done = true;
      cleanUp();
      if (outcome.ok) resolve(outcome.value);
      else reject(outcome.error);
    };
  });
  // Callers attach their handlers later (or not at all after a cancel); an unobserved rejection must not crash.
  ended.catch(() => undefined);

  /** Since when no live worker holds the job (waiting, or active with its lock expired); null while one does. */
  let waitingSince: number | null = Date.now();
  /** A worker took it once: if it waits again, that worker died part-way. */
  let taken = false;
  let timer: NodeJS.Timeout | undefined;
  /**
   * A worker killed with no other worker alive leaves its job active for ever (BullMQ's stalled check runs in the
   * workers), so active jobs are checked for a lock too, often enough to notice within half the pickup deadline.
   */
  const activeRecheckMs = pickupMs > 0 ? Math.max(1, Math.min(pickupMs / 2, RECHECK_MS)) : RECHECK_MS;
  /** Checks, removals and cancels run one at a time, so two of them never decide the same job differently. */
  let serial: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(step: () => Promise<T>): Promise<T> => {
    const next = serial.then(step);
    serial = next.catch(() => undefined);
    return next;
  };

  const failWith = (message: string, code?: string) => settle({ ok: false, error: new JobFailedError(message, code) });
  const onCompleted = (args: { returnvalue: unknown }) => settle({ ok: true, value: args.returnvalue as JobOutcome });
  const onFailed = (args: { failedReason?: string }) => failWith(args.failedReason || 'the job failed in the queue');
  const onActive = () => {
    waitingSince = null;
    taken = true;
    arm(activeRecheckMs);
  };
  const onWaiting = () => {
    // A job goes back to waiting when its worker stopped renewing its lock (BullMQ's stalled check).
    if (waitingSince === null) waitingSince = Date.now();
    arm(pickupMs > 0 ? pickupMs : RECHECK_MS);
  };
  const onClosing = () => failWith('the queue is closed', QueueErrorCode.QueueClosed);
  // Per-job event names (`completed:<id>`, …) are emitted by QueueEvents but not in its typed listener map.
  const events = lane.events as unknown as EventEmitter;
  const queue = lane.queue as unknown as EventEmitter;
  events.on(`completed:${id}`, onCompleted);
  events.on(`failed:${id}`, onFailed);
  events.on(`active:${id}`, onActive);
  events.on(`waiting:${id}`, onWaiting);
  queue.on('closing', onClosing);

  function cleanUp(): void {
    clearTimeout(timer);
    events.off(`completed:${id}`, onCompleted);
    events.off(`failed:${id}`, onFailed);
    events.off(`active:${id}`, onActive);
    events.off(`waiting:${id}`, onWaiting);
    queue.off('closing', onClosing);
  }

  function arm(ms: number): void {
    if (done) return;
    clearTimeout(timer);
    timer = setTimeout(() => void inTurn(check).catch(() => arm(RECHECK_MS)), Math.min(Math.max(ms, 0), RECHECK_MS));
  }

  /** Removes the job unless a worker holds it; true when it is gone from the queue. */
  async function remove(): Promise<boolean> {
    try {
      await job.remove();
      return true;
    } catch {
      return false;
    }
  }

  async function check(): Promise<void> {
    if (done) return;
    const state = await lane.queue.getJobState(id);
    if (done) return;
    if (state === 'completed' || state === 'failed') {
      // The event was missed: read the outcome from the job itself.
      const finished = await Job.fromId<JobData, JobOutcome>(lane.queue, id);
      if (!finished) return failWith('the job was lost from the queue before its result was read');
      if (state === 'completed') return settle({ ok: true, value: finished.returnvalue });
      return failWith(finished.failedReason || 'the job failed in the queue');
    }
    if (state === 'unknown') return failWith('the job was lost from the queue (was Redis restarted without its data?); it may have been done before it was lost: check with list or get_info before sending it again', QueueErrorCode.JobLost);
    if (!UNCLAIMED.has(state)) {
      taken = true;
      // Active with its lock renewed: a live worker runs it.
      if (state !== 'active' || (await lane.lockHeld(id))) {
        waitingSince = null;
        return arm(activeRecheckMs);
      }
      // Active with its lock expired: its worker died. A live worker's stalled check puts it back to waiting; if
      // none does, it is given up like a job no worker takes.
    }
    const now = Date.now();
    // Unclaimed although no event said so: count from now, the safe side.
    if (waitingSince === null) waitingSince = now;
    if (pickupMs <= 0) return arm(RECHECK_MS);
    const left = waitingSince + pickupMs - now;
    if (left > 0) return arm(Math.min(left, activeRecheckMs));
    if (await remove()) {
      const seconds = Number((pickupMs / 1000).toFixed(3));
      return taken
        ? failWith(`The worker running this job stopped and no other worker took it within ${seconds} s; it may have been partly done.`, QueueErrorCode.NoWorker)
        : failWith(`No worker took the job within ${seconds} s; nothing was changed.`, QueueErrorCode.NoWorker);
    }
    // A worker took it just now.
    waitingSince = null;
    taken = true;
    arm(activeRecheckMs);
  }

  // Also covers a job that ended before the listeners above were in place.
  arm(0);

  return {
    ended,
    cancel: () =>
      inTurn(async (): Promise<CancelOutcome> => {
        if (done) return 'ended';
        // `remove` also deletes a finished job, whose result must not be lost: only a job still waiting is removed.
        // (A job taken, run and finished within the one round trip between the two would still be, which no real
        // job is fast enough for.)
        const state = await lane.queue.getJobState(id).catch(() => 'active');
        if (done) return 'ended';
        if (state === 'completed' || state === 'failed') {
          await check();
          return 'ended';
        }
        if (!UNCLAIMED.has(state) || !(await remove())) return done ? 'ended' : 'running';
        if (done) return 'ended';
        // Nobody will finish it now: the watch ends here, and the caller reports the timeout.
        done = true;
        cleanUp();
        return 'removed';
      }),
  };
}
