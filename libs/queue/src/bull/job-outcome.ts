import { JobFailedError } from '../errors';

/**
 * What a worker stores as the BullMQ return value. Processor errors travel as data rather than as a BullMQ
 * failure because BullMQ keeps only the message of a failed job and the caller also needs the error's `code`.
 */
export type JobOutcome = { ok: true; value: unknown } | { ok: false; message: string; code?: string };

/** What the gateway puts in a BullMQ job. */
export interface JobData {
  payload: unknown;
  group: string;
  requestId?: string;
}

export function succeeded(value: unknown): JobOutcome {
  return { ok: true, value };
}

export function failed(error: JobFailedError): JobOutcome {
  return error.code === undefined ? { ok: false, message: error.message } : { ok: false, message: error.message, code: error.code };
}

/** The caller's view of an outcome: the value, or the processor's error rethrown. */
export function unwrapOutcome(outcome: JobOutcome): unknown {
  if (outcome.ok) return outcome.value;
  throw new JobFailedError(outcome.message, outcome.code);
}
