export type TimeoutPhase = 'queued' | 'running';

/** The caller's budget ran out; `phase` says whether the job had been admitted and started. */
export class JobTimeoutError extends Error {
  override readonly name = 'JobTimeoutError';
  constructor(
    readonly timeoutMs: number,
    readonly phase: TimeoutPhase,
  ) {
    super(`The request timed out after ${formatSeconds(timeoutMs)} s (still ${phase})`);
  }
}

/** A processor threw (or the job was lost). Carries the processor's message and its optional `code`. */
export class JobFailedError extends Error {
  override readonly name = 'JobFailedError';
  readonly code?: string;
  constructor(message: string, code?: string) {
    super(message);
    if (code !== undefined) this.code = code;
  }
}

/** Codes this library raises itself, as opposed to codes carried over from processors. */
export const QueueErrorCode = {
  UnknownKind: 'UNKNOWN_KIND',
  QueueClosed: 'QUEUE_CLOSED',
  AdmissionLost: 'ADMISSION_LOST',
  /** No worker took the job within the pickup deadline (QUEUE_PICKUP_TIMEOUT_MS); it was removed from the queue. */
  NoWorker: 'NO_WORKER',
  /** The job disappeared from the queue before it ended (Redis lost its data). */
  JobLost: 'JOB_LOST',
} as const;

/** Turns anything a processor threw into a JobFailedError, keeping message and a string `code`. */
export function toJobFailedError(thrown: unknown): JobFailedError {
  if (thrown instanceof JobFailedError) return thrown;
  if (thrown instanceof Error) {
    const code = (thrown as { code?: unknown }).code;
    return new JobFailedError(thrown.message, code === undefined || code === null ? undefined : String(code));
  }
  return new JobFailedError(String(thrown));
}

function formatSeconds(ms: number): string {
  // Three decimals keep sub-second test budgets readable ("0.25 s") and whole seconds clean ("30 s").
  return String(Number((ms / 1000).toFixed(3)));
}
