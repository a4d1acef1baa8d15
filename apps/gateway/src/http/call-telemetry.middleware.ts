import { Metrics, requestContext } from '@loupe/runtime';
import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { beginCall, REQUEST_LOG, REQUEST_METRICS } from './collection-call';
import { isServed, SERVED_OPERATIONS, ServedOperations } from './collection-routes';

/** Client-supplied request ids are kept only when short and plain, so logs cannot be forged or flooded through them. */
const REQUEST_ID = /^[A-Za-z0-9._-]{1,100}$/;

/** A percent-encoded unreserved character (RFC 3986 §2.3), which means the character itself. */
const ESCAPE = /%([0-9A-Fa-f]{2})/g;
const UNRESERVED = /^[A-Za-z0-9._~-]$/;

function withUnreservedDecoded(segment: string): string {
  return segment.replace(ESCAPE, (escape, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : escape;
  });
}

/**
 * The path with the service and operation names' unreserved characters decoded (`/mob%69le/acme/rest/p%69ng/` is
 * `/mobile/acme/rest/ping/`, RFC 3986 §6.2.2.2). Each service and operation has a route of its own, and Express
 * compares routes with the path as sent; the names have always been read decoded, so an encoded letter must reach the
 * route of its name. Other escapes (`%2F`) stay: decoded, they name no service or operation, as before.
 */
export function plainNamesPath(url: string): string {
  if (!url.includes('%')) return url;
  const query = url.indexOf('?');
  const segments = (query < 0 ? url : url.slice(0, query)).split('/');
  // ['', service, account, 'rest', operation, ('')]
  segments[1] = withUnreservedDecoded(segments[1]);
  segments[4] = withUnreservedDecoded(segments[4]);
  return segments.join('/') + (query < 0 ? '' : url.slice(query));
}

/**
 * The request id, timing, log line and metrics of every collection call, whatever answers it, and the path's names.
 * A middleware rather than an interceptor: Nest runs guards before interceptors, so an interceptor never sees the 401,
 * 404 and 429 the guard answers, which must be counted like any other answer; and it runs before Express routes the
 * call to its service's controller (plainNamesPath). The call runs under its request id (AsyncLocalStorage), which
 * the job queue hands to the worker that runs its job.
 */
@Injectable()
export class CallTelemetry implements NestMiddleware {
  constructor(
    @Inject(SERVED_OPERATIONS) private readonly served: ServedOperations,
    @Inject(REQUEST_METRICS) private readonly metrics: Metrics,
    @Inject(REQUEST_LOG) private readonly log: Logger,
  ) {}

  use(req: Request, res: Response, next: NextFunction): void {
    const header = req.headers['x-request-id'];
    const requestId = typeof header === 'string' && REQUEST_ID.test(header) ? header : randomUUID();
    const call = beginCall(req, requestId, performance.now());
    const params = req.params as Record<string, string>;
    call.service = params.service;
    call.accountName = params.account;
    call.operation = params.operation;
    req.url = plainNamesPath(req.url);
    res.setHeader('x-request-id', requestId);
    call.answered = (status) => {
      call.answered = undefined;
      const seconds = (performance.now() - call.started) / 1000;
      // Labels only from the operations the controllers serve: whatever the answer (401s included), a path that
      // names no real service or operation is counted as `unknown`, so probing random paths cannot create series.
      const knownService = isServed(this.served, call.service);
      const knownOperation = isServed(this.served, call.service, call.operation);
      const outcome = status === 200 ? call.envelopeStatus ?? 'ok' : String(status);
      this.metrics.observe(knownService ? call.service! : 'unknown', knownOperation ? call.operation! : 'unknown', outcome, seconds);
      this.log.info(
        { requestId, service: call.service, account: call.accountName, operation: call.operation, status, outcome, ms: Math.round(seconds * 1000) },
        'request',
      );
    };
    requestContext.run({ requestId }, next);
  }
}
