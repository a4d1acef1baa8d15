import { Metrics, requestContext } from '@loupe/runtime';
import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { beginCall, own, REQUEST_LOG, REQUEST_METRICS, SERVICE_TABLES, ServiceTables, tableOf } from './collection-call';

/** Client-supplied request ids are kept only when short and plain, so logs cannot be forged or flooded through them. */
const REQUEST_ID = /^[A-Za-z0-9._-]{1,100}$/;

/**
 * The request id, timing, log line and metrics of every collection call, whatever answers it. A middleware rather than
 * an interceptor: Nest runs guards before interceptors, so an interceptor never sees the 401, 404 and 429 the guard
 * answers, which must be counted like any other answer. The call runs under its request id (AsyncLocalStorage), which
 * the job queue hands to the worker that runs its job.
 */
@Injectable()
export class CallTelemetry implements NestMiddleware {
  constructor(
    @Inject(SERVICE_TABLES) private readonly services: ServiceTables,
    @Inject(REQUEST_METRICS) private readonly metrics: Metrics,
    @Inject(REQUEST_LOG) private readonly log: Logger,
  ) {}

  use(req: Request, res: Response, next: NextFunction): void {
    const header = req.headers['x-request-id'];
    const requestId = typeof header === 'string' && REQUEST_ID.test(header) ? header : randomUUID();
    const call = beginCall(req, requestId, performance.now());
    res.setHeader('x-request-id', requestId);
    call.answered = (status) => {
      call.answered = undefined;
      const seconds = (performance.now() - call.started) / 1000;
      // Labels only from the services' own tables: whatever the answer (401s included), a path that names no real
      // service or operation is counted as `unknown`, so probing random paths cannot create metric series.
      const table = tableOf(this.services, call.service);
      const knownOperation = table !== undefined && own(table, call.operation) !== undefined;
      const outcome = status === 200 ? call.envelopeStatus ?? 'ok' : String(status);
      this.metrics.observe(table ? call.service! : 'unknown', knownOperation ? call.operation! : 'unknown', outcome, seconds);
      this.log.info(
        { requestId, service: call.service, account: call.accountName, operation: call.operation, status, outcome, ms: Math.round(seconds * 1000) },
        'request',
      );
    };
    requestContext.run({ requestId }, next);
  }
}
