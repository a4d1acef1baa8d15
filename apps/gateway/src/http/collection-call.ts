import type { AccountRow } from '@loupe/storage';
import type { IncomingMessage } from 'node:http';
import type { COMMON, ReadOf } from '../contracts';

/** Injection tokens of what the collection call path needs; bootstrap.ts provides them. */
export const BASIC_AUTH = Symbol('BASIC_AUTH');
export const BODY_LIMITS = Symbol('BODY_LIMITS');
export const REQUEST_LOG = Symbol('REQUEST_LOG');
export const REQUEST_METRICS = Symbol('REQUEST_METRICS');

/**
 * One collection call as it goes through the middleware, guard, pipe, interceptor and filter: each stage records what
 * it learned (the route's names, the account, the common parameters read so far), so that whichever stage answers
 * (the handler's result, or any failure) renders the envelope in the format asked and counts it under known labels.
 */
export interface CollectionCall {
  requestId: string;
  /** performance.now() when the call arrived: `time_total` and the request duration run from here. */
  started: number;
  /** The path's names as sent (decoded), set by CallTelemetry. */
  service?: string;
  accountName?: string;
  operation?: string;
  account?: AccountRow;
  /** The common parameters as far as they were read: an answer refusing a later one is still in the asked format. */
  common: Partial<ReadOf<typeof COMMON>>;
  /** Aborted when the client goes away before its answer (interceptor). */
  signal?: AbortSignal;
  /** ok, warn or fail of the envelope answered, for metrics and logs. */
  envelopeStatus?: string;
  /**
   * Told once the answer is rendered (CallTelemetry counts it then): also when the client has gone and the answer is
   * never sent, which a response's `finish` event would miss.
   */
  answered?: (status: number) => void;
}

const CALL = Symbol('loupe collection call');

export function beginCall(req: IncomingMessage, requestId: string, started: number): CollectionCall {
  const call: CollectionCall = { requestId, started, common: {} };
  (req as unknown as Record<symbol, CollectionCall>)[CALL] = call;
  return call;
}

/** The call of a request that went through CollectionTelemetry; undefined for other paths. */
export function callOf(req: IncomingMessage): CollectionCall | undefined {
  return (req as unknown as Record<symbol, CollectionCall | undefined>)[CALL];
}

export function own<T>(table: Readonly<Record<string, T>>, name: string | undefined): T | undefined {
  return name !== undefined && Object.prototype.hasOwnProperty.call(table, name) ? table[name] : undefined;
}
