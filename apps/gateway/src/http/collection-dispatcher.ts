import {
  AuthError, Envelope, NotFoundError, ParamError, parseFormat, PayloadTooLargeError, quoteInput, renderEnvelope, ResponseFormat, seconds, statusFor,
} from '@loupe/envelope';
import { INPUT_REFUSED, overlayKey } from '@loupe/jobs';
import { JobFailedError, JobTimeoutError, QueueErrorCode } from '@loupe/queue';
import { Metrics, requestContext } from '@loupe/runtime';
import type { BlobStore } from '@loupe/storage';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import { COMMON, ReadOf, readInput } from '../contracts';
import type { OperationOutcome, OperationTable, ServiceName } from '../services/operation';
import { AuthThrottledError, BasicAuthService } from './basic-auth.service';
import { watchClientGone } from './client-gone';
import { BodyLimits, readParams } from './read-params';
import { isBackendUnavailable, RETRY_AFTER_UNAVAILABLE_S, UNAVAILABLE_MESSAGE } from './unavailable';

export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** ok, warn or fail, for metrics and logs. */
  envelopeStatus?: string;
}

/** Client-supplied request ids are kept only when short and plain, so logs cannot be forged or flooded through them. */
const REQUEST_ID = /^[A-Za-z0-9._-]{1,100}$/;

/** The `format` of the query string, read before the body (and for answers given without reading it); json if bad. */
export function earlyFormat(url: string | undefined): ResponseFormat {
  const query = url?.includes('?') ? new URLSearchParams(url.slice(url.indexOf('?') + 1)) : null;
  try {
    return parseFormat(query?.get('format') ?? undefined);
  } catch {
    return 'json';
  }
}

/**
 * One collection-service call from HTTP request to rendered envelope: authenticate, read parameters, run the
 * operation, and map every failure to the status clients expect (compatibility.md): input problems are `fail`
 * envelopes with HTTP 200; 401 for credentials, 404 for unknown operations, 413 for oversized bodies, 5xx for faults.
 */
export class CollectionDispatcher {
  constructor(
    private readonly auth: BasicAuthService,
    private readonly blobs: BlobStore,
    private readonly services: Readonly<Record<ServiceName, OperationTable>>,
    private readonly limits: BodyLimits,
    private readonly observe: { log: Logger; metrics: Metrics },
  ) {}

  overlay(req: IncomingMessage, service: string, accountName: string, file: string) {
    return serveOverlay(this.auth, this.blobs, req, service, accountName, file);
  }

  /** Runs a call under its request id (the client's X-Request-Id when sane, else a new one), logged and measured. */
  async handle(req: IncomingMessage, service: string, accountName: string, operation: string): Promise<HttpAnswer> {
    const header = req.headers['x-request-id'];
    const requestId = typeof header === 'string' && REQUEST_ID.test(header) ? header : randomUUID();
    const started = performance.now();
    const answer = await requestContext.run({ requestId }, () => this.dispatch(req, service, accountName, operation));
    const seconds = (performance.now() - started) / 1000;
    // Labels only from the services' own tables: whatever the answer (401s included), a path that names no real
    // service or operation is counted as `unknown`, so probing random paths cannot create metric series.
    const table = Object.prototype.hasOwnProperty.call(this.services, service) ? this.services[service as ServiceName] : undefined;
    const knownOperation = table !== undefined && Object.prototype.hasOwnProperty.call(table, operation);
    const outcome = answer.status === 200 ? answer.envelopeStatus ?? 'ok' : String(answer.status);
    this.observe.metrics.observe(table ? service : 'unknown', knownOperation ? operation : 'unknown', outcome, seconds);
    this.observe.log.info({ requestId, service, account: accountName, operation, status: answer.status, outcome, ms: Math.round(seconds * 1000) }, 'request');
    return { ...answer, headers: { ...answer.headers, 'x-request-id': requestId } };
  }

  private async dispatch(req: IncomingMessage, service: string, accountName: string, operation: string): Promise<HttpAnswer> {
    const started = performance.now();
    // The common parameters as far as they were read: an answer refusing a later one is still in the asked format.
    const common: Partial<ReadOf<typeof COMMON>> = {};
    const early = earlyFormat(req.url);
    const answer = (status: number, envelope: Envelope, headers: Record<string, string> = {}): HttpAnswer => {
      envelope.stats = { ...envelope.stats, time_total: seconds(performance.now() - started) };
      const rendered = renderEnvelope(envelope, common.format ?? early, { callback: common.callback });
      return { status, headers: { 'content-type': rendered.contentType, ...headers }, body: rendered.body, envelopeStatus: envelope.status };
    };
    const failure = (message: string) => ({ method: operation, status: 'fail' as const, error: [message], result: [], stats: {} });
    const client = watchClientGone(req);

    try {
      const table = this.services[service as ServiceName];
      if (!table) throw new NotFoundError(`There is no service named ${quoteInput(service)}.`);
      const account = await this.auth.authenticate(accountName, req);
      const run = Object.prototype.hasOwnProperty.call(table, operation) ? table[operation] : undefined;
      if (!run) throw new NotFoundError(`The ${service} service has no operation ${quoteInput(operation)}.`);
      const params = await readParams(req, this.limits);
      readInput(COMMON, params, common);
      const input = readInput(run.contract.params, params);
      const { format, timeout } = common as ReadOf<typeof COMMON>;
      const outcome = await run.run({ service: service as ServiceName, account, format, timeoutMs: timeout > 0 ? timeout * 1000 : undefined, signal: client.signal }, input);
      return answer(200, toEnvelope(operation, outcome));
    } catch (error) {
      if (error instanceof ParamError) return answer(200, failure(error.message));
      if (error instanceof JobFailedError && error.code === INPUT_REFUSED) return answer(200, failure(error.message));
      // Like a timeout: the job was given up (no worker took it) and the envelope says so.
      if (error instanceof JobFailedError && error.code === QueueErrorCode.NoWorker) return answer(200, failure(error.message));
      if (error instanceof JobTimeoutError) {
        return answer(200, failure(`The request timed out after ${common.timeout} s (it was still ${error.phase}).`));
      }
      if (error instanceof AuthThrottledError) return answer(429, failure(error.message), { 'retry-after': String(error.retryAfterSeconds) });
      if (error instanceof AuthError) {
        return answer(401, failure(error.message), { 'www-authenticate': 'Basic realm="Loupe", charset="UTF-8"' });
      }
      if (error instanceof NotFoundError) return answer(404, failure(error.message));
      // Closing the connection stops the client's upload at once; kept open, Node would read the rest and discard it.
      if (error instanceof PayloadTooLargeError) return answer(413, failure(error.message), { connection: 'close' });
      this.observe.log.error({ service, operation, err: error instanceof Error ? error.stack : String(error) }, 'request failed');
      if (isBackendUnavailable(error)) return answer(503, failure(UNAVAILABLE_MESSAGE), { 'retry-after': String(RETRY_AFTER_UNAVAILABLE_S) });
      return answer(500, failure(`Internal error: ${internalErrorDetail(error)}`));
    } finally {
      client.release();
    }
  }
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

/** Serves a rendered overlay (`overlay/<id>.jpg` relative to `{base}/<account>/rest/`) to the account that made it. */
export async function serveOverlay(
  auth: BasicAuthService,
  blobs: BlobStore,
  req: IncomingMessage,
  service: string,
  accountName: string,
  file: string,
): Promise<{ status: number; headers: Record<string, string>; body: Buffer | string }> {
  try {
    const account = await auth.authenticate(accountName, req);
    const key = overlayKey(account.name, service, file.replace(/\.jpg$/, ''));
    const data = key ? await blobs.get(key) : null;
    if (!data) return { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'No such overlay.' };
    return { status: 200, headers: { 'content-type': 'image/jpeg', 'cache-control': 'private, max-age=86400' }, body: data };
  } catch (error) {
    if (error instanceof AuthThrottledError) {
      return { status: 429, headers: { 'retry-after': String(error.retryAfterSeconds), 'content-type': 'text/plain; charset=utf-8' }, body: error.message };
    }
    if (error instanceof AuthError) {
      return { status: 401, headers: { 'www-authenticate': 'Basic realm="Loupe", charset="UTF-8"', 'content-type': 'text/plain; charset=utf-8' }, body: error.message };
    }
    throw error;
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
