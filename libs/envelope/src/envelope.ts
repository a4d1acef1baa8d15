/** The response envelope of the collection services (docs/protocol.md §3). */
export type Status = 'ok' | 'warn' | 'fail';

export type Stats = Record<string, number>;

export interface Envelope {
  method: string;
  status: Status;
  error: string[];
  result: unknown[];
  query_image?: Record<string, unknown>;
  stats: Stats;
}

/**
 * The status that the error list implies: nothing went wrong → ok; some inputs failed while others were done → warn;
 * nothing was done → fail. `anyDone` says whether at least one input succeeded.
 */
export function statusFor(errors: readonly string[], anyDone: boolean): Status {
  if (errors.length === 0) return 'ok';
  return anyDone ? 'warn' : 'fail';
}

export function failEnvelope(method: string, errors: string[], stats: Stats = {}): Envelope {
  return { method, status: 'fail', error: errors, result: [], stats };
}

/** Rounds seconds to microseconds so timings read as short decimals in JSON and XML. */
export function seconds(ms: number): number {
  return Math.round(ms * 1000) / 1e6;
}
