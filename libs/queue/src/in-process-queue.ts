import type { JobContext, JobQueue, JobRequest, Processor, ProcessorMap, QueueCounts } from './contracts';
import { DEADLINE_REASON, raceSignal, startDeadline } from './deadline';
import { JobFailedError, JobTimeoutError, QueueErrorCode, toJobFailedError } from './errors';
import { createFifoSemaphore, FifoSemaphore } from './fifo-semaphore';
import { jsonCopy } from './json';
import { admissionQueueName, QueuePolicy } from './policy';

/**
 * Embedded mode: one process, no Redis. Same admission rules as the BullMQ adapter, with the semaphores in memory.
 * A job whose caller timed out while it was running keeps its slot until the processor really ends, because the
 * processor cannot be interrupted and the limit is about work actually running.
 */
export function createInProcessQueue(opts: { processors: ProcessorMap; policy: QueuePolicy }): JobQueue {
  const { policy } = opts;
  const semaphores = new Map<string, FifoSemaphore>();
  const runningByKind = new Map<string, number>();
  const closing = new AbortController();

  const semaphoreFor = (name: string, limit: number) => {
    let semaphore = semaphores.get(name);
    if (!semaphore) {
      semaphore = createFifoSemaphore(limit);
      semaphores.set(name, semaphore);
    }
    return semaphore;
  };

  const countRunning = (kind: string, delta: number) => runningByKind.set(kind, (runningByKind.get(kind) ?? 0) + delta);

  async function run<R, P>(req: JobRequest<P>): Promise<R> {
    if (closing.signal.aborted) throw new JobFailedError('the queue is closed', QueueErrorCode.QueueClosed);
    const processor: Processor | undefined = opts.processors[req.kind];
    if (!processor) throw new JobFailedError(`no processor for job kind "${req.kind}"`, QueueErrorCode.UnknownKind);
    const cls = policy.classOf(req.kind);
    const name = admissionQueueName(req.group, cls);
    const semaphore = semaphoreFor(name, policy.limit(cls));
    const deadline = startDeadline(req.timeoutMs);
    const waitSignal = AbortSignal.any([deadline.signal, closing.signal]);
    let release: () => void;
    try {
      release = await semaphore.acquire(waitSignal);
    } catch (reason) {
      deadline.clear();
      if (reason === DEADLINE_REASON) throw new JobTimeoutError(req.timeoutMs ?? 0, 'queued');
      throw new JobFailedError('the queue is closed', QueueErrorCode.QueueClosed);
    }
    const ctx: JobContext = { kind: req.kind, group: req.group, requestId: req.requestId, attempt: 1 };
    countRunning(req.kind, 1);
    const job = invoke(processor, req.payload, ctx).finally(() => {
      countRunning(req.kind, -1);
      release();
      // Forget idle groups so a long-lived process does not keep one semaphore per account ever seen.
      if (semaphore.active === 0 && semaphore.waiting === 0) semaphores.delete(name);
    });
    try {
      const outcome = await raceSignal(job, deadline.signal);
      if (!outcome.done) {
        job.catch(() => undefined);
        throw new JobTimeoutError(req.timeoutMs ?? 0, 'running');
      }
      return outcome.value as R;
    } finally {
      deadline.clear();
    }
  }

  return {
    run,
    async stats() {
      const counts: Record<string, QueueCounts> = {};
      for (const [name, semaphore] of semaphores) counts[name] = { waiting: semaphore.waiting, active: semaphore.active };
      for (const [kind, running] of runningByKind) counts[`kind:${kind}`] = { waiting: 0, active: running };
      return counts;
    },
    async close() {
      closing.abort();
    },
  };
}

async function invoke(processor: Processor, payload: unknown, ctx: JobContext): Promise<unknown> {
  try {
    return jsonCopy(await processor(jsonCopy(payload), ctx));
  } catch (thrown) {
    throw toJobFailedError(thrown);
  }
}
