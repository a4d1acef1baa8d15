import type { StepTimes } from '@loupe/jobs';
import type { JobQueue, JobRequest, ProcessorMap } from '@loupe/queue';
import type { Logger } from 'pino';
import { performance } from 'node:perf_hooks';
import { currentRequestId } from './logging';
import type { Metrics } from './metrics';

/** The per-step times (ms) a job's result reports (`SearchResult.steps`), when it does. */
function stepsOf(result: unknown): StepTimes | undefined {
  if (typeof result !== 'object' || result === null || !('steps' in result)) return undefined;
  const { steps } = result as { steps: unknown };
  return typeof steps === 'object' && steps !== null ? (steps as StepTimes) : undefined;
}

/** Times and logs every job (with its steps, when its result reports them), with the request id the gateway attached, and records its duration. */
export function instrumentProcessors(processors: ProcessorMap, metrics: Metrics, log: Logger): ProcessorMap {
  const wrapped: ProcessorMap = {};
  for (const [kind, processor] of Object.entries(processors)) {
    wrapped[kind] = async (payload, ctx) => {
      const started = performance.now();
      const fields = { kind, group: ctx.group, requestId: ctx.requestId, attempt: ctx.attempt };
      try {
        const result = await processor(payload, ctx);
        const seconds = (performance.now() - started) / 1000;
        metrics.jobs.observe({ kind, outcome: 'ok' }, seconds);
        const steps = stepsOf(result);
        for (const [step, ms] of Object.entries(steps ?? {})) metrics.jobSteps.observe({ kind, step }, ms / 1000);
        log.info({ ...fields, ms: Math.round(seconds * 1000), ...(steps && { steps }) }, 'job done');
        return result;
      } catch (error) {
        const seconds = (performance.now() - started) / 1000;
        metrics.jobs.observe({ kind, outcome: 'error' }, seconds);
        log.warn({ ...fields, ms: Math.round(seconds * 1000), err: error instanceof Error ? error.message : String(error) }, 'job failed');
        throw error;
      }
    };
  }
  return wrapped;
}

/** Attaches the current HTTP request id to every job a queue runs, so call sites need not pass it. */
export function withRequestIds(queue: JobQueue): JobQueue {
  return {
    run: <R, P>(req: JobRequest<P>) => queue.run<R, P>({ ...req, requestId: req.requestId ?? currentRequestId() }),
    stats: () => queue.stats(),
    close: () => queue.close(),
  };
}
