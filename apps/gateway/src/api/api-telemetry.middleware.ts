import { Metrics } from '@loupe/runtime';
import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { REQUEST_METRICS } from '../http/collection-call';
import { beginApiCall, isApiOperation, PUBLIC_API_SERVICE } from './api-call';

/**
 * Counts and times every public API call, whatever answers it (the guard's 401 and 429 included, which an interceptor
 * would not see). The operation label comes from the API's own list, never from the URL: probing random paths creates
 * no metric series.
 */
@Injectable()
export class ApiTelemetry implements NestMiddleware {
  constructor(@Inject(REQUEST_METRICS) private readonly metrics: Metrics) {}

  use(req: Request, _res: Response, next: NextFunction): void {
    const call = beginApiCall(req);
    call.answered = (status) => {
      call.answered = undefined;
      const operation = isApiOperation(call.operation) ? call.operation! : 'unknown';
      this.metrics.observe(PUBLIC_API_SERVICE, operation, status === 200 ? 'ok' : String(status), (Date.now() - call.startedAt) / 1000);
    };
    next();
  }
}
