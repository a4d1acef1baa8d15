import { Envelope, parseFormat, renderEnvelope, ResponseFormat, seconds, statusFor } from '@loupe/envelope';
import { JobFailedError, QueueErrorCode } from '@loupe/queue';
import type { Response } from 'express';
import { performance } from 'node:perf_hooks';
import type { OperationOutcome } from '../services/operation';
import type { CollectionCall } from './collection-call';

/** The `format` of the query string, read before the body (and for answers given without reading it); json if bad. */
export function earlyFormat(url: string | undefined): ResponseFormat {
  const query = url?.includes('?') ? new URLSearchParams(url.slice(url.indexOf('?') + 1)) : null;
  try {
    return parseFormat(query?.get('format') ?? undefined);
  } catch {
    return 'json';
  }
}

export function toEnvelope(method: string, outcome: OperationOutcome): Envelope {
  const errors = outcome.errors ?? [];
  const envelope: Envelope = {
    method,
    status: outcome.status ?? statusFor(errors, true),
    error: errors,
    result: outcome.status === 'fail' ? [] : outcome.result,
    stats: outcome.stats,
  };
  if (outcome.query_image !== undefined) envelope.query_image = outcome.query_image;
  return envelope;
}

export function failure(method: string, message: string): Envelope {
  return { method, status: 'fail', error: [message], result: [], stats: {} };
}

/**
 * Renders a collection call's envelope on the response: `time_total` from the call's arrival, in the format and with
 * the JSONP callback the call asked for as far as they were read (else `format` of the query string).
 */
export function sendEnvelope(res: Response, call: CollectionCall, url: string | undefined, status: number, envelope: Envelope, headers: Record<string, string> = {}): string {
  envelope.stats = { ...envelope.stats, time_total: seconds(performance.now() - call.started) };
  const rendered = renderEnvelope(envelope, call.common.format ?? earlyFormat(url), { callback: call.common.callback });
  call.envelopeStatus = envelope.status;
  res.status(status).set({ 'content-type': rendered.contentType, ...headers });
  call.answered?.(status);
  return rendered.body;
}

/** What the queue itself says when a job ends without a result: our own words, meant for the caller. */
const QUEUE_OWN_CODES: ReadonlySet<string> = new Set(Object.values(QueueErrorCode));

/**
 * The detail of a 500 answer. Only the queue's own messages (a job lost with Redis's data, an admission ticket that
 * expired) are shown; anything else a processor threw is a driver's or library's text, which can name internal hosts
 * and ports (`connect ECONNREFUSED 10.0.3.7:5432`), so it goes to the log only.
 */
export function internalErrorDetail(error: unknown): string {
  if (error instanceof JobFailedError && error.code !== undefined && QUEUE_OWN_CODES.has(error.code)) return error.message;
  return 'An internal error occurred; it has been logged.';
}
