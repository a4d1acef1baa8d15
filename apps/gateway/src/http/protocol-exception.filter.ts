import { AuthError, failEnvelope, NotFoundError, ParamError, PayloadTooLargeError, quoteInput, renderEnvelope, shortInput } from '@loupe/envelope';
import { INPUT_REFUSED } from '@loupe/jobs';
import { JobFailedError, JobTimeoutError, QueueErrorCode } from '@loupe/queue';
import { ArgumentsHost, Catch, HttpStatus, Inject, Logger, Optional } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import type { Request, Response } from 'express';
import type { Logger as Pino } from 'pino';
import { apiCallOf, ApiCallState } from '../api/api-call';
import { apiEnvelope, renderApiEnvelope } from '../api/api-envelope';
import { sendApiEnvelope } from '../api/api-envelope.interceptor';
import { apiFailure } from '../api/api-failure';
import { AuthThrottledError } from './basic-auth.service';
import { callOf, CollectionCall, REQUEST_LOG } from './collection-call';
import { earlyFormat, failure, internalErrorDetail, sendEnvelope } from './envelopes';
import { isBackendUnavailable, RETRY_AFTER_UNAVAILABLE_S, UNAVAILABLE_MESSAGE } from './unavailable';

/** The Basic challenge of a 401: clients (and browsers) answer it with credentials. */
const BASIC_CHALLENGE = 'Basic realm="Loupe", charset="UTF-8"';

/** Which protocol a path belongs to: the public API (`/rest/…`, `/api/rest/…`), a collection service, or neither. */
export function protocolOf(path: string): 'api' | 'collection' | 'other' {
  if (/^\/(api\/)?rest(\/|$)/.test(path)) return 'api';
  if (/^\/[^/]+\/[^/]+\/rest(\/|$)/.test(path)) return 'collection';
  return 'other';
}

/**
 * The status of whatever was thrown: Nest's HttpExceptions and the `http-errors` of Express and its router; anything
 * else is a fault. Read from the object rather than by `instanceof`, which fails when a second copy of @nestjs/common
 * is loaded (bootstrap.ts).
 */
function statusOf(exception: unknown): number {
  const e = exception as { getStatus?: () => unknown; status?: unknown; statusCode?: unknown } | null;
  const status = typeof e?.getStatus === 'function' ? e.getStatus() : (e?.statusCode ?? e?.status);
  return typeof status === 'number' && status >= 400 && status <= 599 ? status : HttpStatus.INTERNAL_SERVER_ERROR;
}

/** A path that Express could not percent-decode (`%E0%A4%A`): Nest raises it as a 400 whose cause is the URIError. */
function isUndecodablePath(exception: unknown): boolean {
  const e = exception as { cause?: unknown; name?: unknown } | null;
  return e?.name === 'URIError' || (e?.cause as { name?: unknown } | undefined)?.name === 'URIError';
}

/**
 * The one place where failures become answers (docs/protocol.md §3 and §5).
 *
 * A public API call is answered with the API's envelope (docs/protocol.md §5): its code as the HTTP status and the
 * messages pair (error name, description): 400 for bad requests, 401/403/429 from the signature and quota checks, 404
 * for unknown operations, 413 for oversized bodies, 503 while no worker or backing server answers, 500 for faults.
 *
 * A collection call (guard, pipe or operation) is answered with its `fail` envelope in the format it asked for: input
 * problems with HTTP 200, because existing clients treat any other status as a transport error and never read the
 * body; 401 for credentials, 429 after too many failures, 404 for unknown services and operations, 413 for oversized
 * bodies, 503 while a backing server is down, 500 for faults (details logged, not shown).
 *
 * What Nest itself raises before any controller runs (no route for the path, a path that cannot be decoded) is
 * answered in the protocol of the path: the collection services' `fail` envelope (JSON or XML per `format`) or the
 * public API's envelope, never Nest's default `{"statusCode":…}` JSON, which no client of either protocol can read.
 * Paths of neither protocol (health, docs, console) keep Nest's own answers, except that a path no route serves gets
 * the collection envelope, the gateway's main protocol.
 */
@Catch()
export class ProtocolExceptionFilter extends BaseExceptionFilter {
  private readonly logger = new Logger('ProtocolExceptionFilter');

  constructor(@Optional() @Inject(REQUEST_LOG) private readonly log?: Pino) {
    super();
  }

  override catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') return super.catch(exception, host);
    const req = host.switchToHttp().getRequest<Request>();
    const res = host.switchToHttp().getResponse<Response>();
    const call = callOf(req);
    if (call?.service !== undefined && !res.headersSent) return this.failCall(call, exception, req, res);
    const apiCall = apiCallOf(req);
    if (apiCall && !res.headersSent) return this.failApiCall(apiCall, exception, res);
    const rawPath = (req.originalUrl ?? req.url ?? '/').split('?')[0];
    const protocol = protocolOf(rawPath);
    let status = statusOf(exception);
    const undecodable = isUndecodablePath(exception);
    if (res.headersSent || (protocol === 'other' && status !== HttpStatus.NOT_FOUND && !undecodable)) return super.catch(exception, host);

    const path = quoteInput(rawPath, 200);
    let message: string;
    if (undecodable) {
      // The path names the operation: one that cannot be decoded names none, like an unknown operation (404).
      status = protocol === 'api' ? HttpStatus.BAD_REQUEST : HttpStatus.NOT_FOUND;
      message = `The path ${path} could not be decoded: a percent-encoding in it is not UTF-8 text.`;
    } else if (status === HttpStatus.NOT_FOUND) {
      message = protocol === 'api'
        ? `There is nothing at ${path}; the operations are /rest/search/, /rest/image_count/ and /rest/remaining_searches/.`
        : `There is nothing at ${path}; a collection call is /<service>/<account>/rest/<operation>/.`;
    } else if (status >= 500) {
      this.logger.error(exception instanceof Error ? exception.stack : String(exception));
      message = 'An internal error occurred; it has been logged.';
    } else {
      const text = (exception as { message?: unknown } | null)?.message;
      message = typeof text === 'string' && text ? shortInput(text, 200) : `The request was refused (HTTP ${status}).`;
    }

    if (protocol === 'api') {
      const name = status === HttpStatus.NOT_FOUND ? 'NOT_FOUND' : status >= 500 ? 'INTERNAL_ERROR' : 'BAD_REQUEST';
      const now = Date.now();
      res.status(status).type('application/json; charset=utf-8').send(renderApiEnvelope(apiEnvelope(status, [name, message], [], now, 0), false));
      return;
    }
    const rendered = renderEnvelope(failEnvelope('', [status >= 500 ? `Internal error: ${message}` : message]), earlyFormat(req.url));
    res.status(status).type(rendered.contentType).send(rendered.body);
  }

  private failApiCall(call: ApiCallState, exception: unknown, res: Response): void {
    let answer = apiFailure(exception);
    if (!answer) {
      this.log?.error({ err: exception }, `api/${call.operation} failed`);
      answer = isBackendUnavailable(exception)
        ? { code: 503, messages: ['SERVICE_UNAVAILABLE', UNAVAILABLE_MESSAGE], headers: { 'retry-after': String(RETRY_AFTER_UNAVAILABLE_S) } }
        : { code: 500, messages: ['INTERNAL_ERROR', 'An internal error occurred; it has been logged.'] };
    }
    res.send(sendApiEnvelope(res, call, answer.code, answer.messages, [], answer.headers));
  }

  private failCall(call: CollectionCall, exception: unknown, req: Request, res: Response): void {
    const method = call.operation ?? '';
    let answer = collectionFailure(exception, call.common.timeout);
    if (!answer) {
      this.log?.error({ service: call.service, operation: call.operation, err: exception instanceof Error ? exception.stack : String(exception) }, 'request failed');
      answer = isBackendUnavailable(exception)
        ? { status: 503, message: UNAVAILABLE_MESSAGE, headers: { 'retry-after': String(RETRY_AFTER_UNAVAILABLE_S) } }
        : { status: 500, message: `Internal error: ${internalErrorDetail(exception)}` };
    }
    res.send(sendEnvelope(res, call, req.url, answer.status, failure(method, answer.message), answer.headers));
  }
}

export interface CollectionFailure {
  status: number;
  message: string;
  headers?: Record<string, string>;
}

/** The answer of a collection call that failed, or undefined for a fault (500 or 503, logged by the filter). */
export function collectionFailure(error: unknown, timeoutSeconds: number | undefined): CollectionFailure | undefined {
  if (error instanceof ParamError) return { status: 200, message: error.message };
  if (error instanceof JobFailedError && error.code === INPUT_REFUSED) return { status: 200, message: error.message };
  // Like a timeout: the job was given up (no worker took it) and the envelope says so.
  if (error instanceof JobFailedError && error.code === QueueErrorCode.NoWorker) return { status: 200, message: error.message };
  if (error instanceof JobTimeoutError) return { status: 200, message: `The request timed out after ${timeoutSeconds} s (it was still ${error.phase}).` };
  if (error instanceof AuthThrottledError) return { status: 429, message: error.message, headers: { 'retry-after': String(error.retryAfterSeconds) } };
  if (error instanceof AuthError) return { status: 401, message: error.message, headers: { 'www-authenticate': BASIC_CHALLENGE } };
  if (error instanceof NotFoundError) return { status: 404, message: error.message };
  // Closing the connection stops the client's upload at once; kept open, Node would read the rest and discard it.
  if (error instanceof PayloadTooLargeError) return { status: 413, message: error.message, headers: { connection: 'close' } };
  return undefined;
}
