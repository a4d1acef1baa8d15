import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request, Response } from 'express';
import { finalize, map, Observable } from 'rxjs';
import type { OperationOutcome } from '../services/operation';
import { watchClientGone } from './client-gone';
import { callOf } from './collection-call';
import { sendEnvelope, toEnvelope } from './envelopes';

/**
 * Around every collection operation: a signal that aborts when the client goes away (its downloads stop), and the
 * operation's outcome rendered as the envelope, with `method`, `time_total`, and `format` / `callback` applied.
 */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor<OperationOutcome, string> {
  intercept(context: ExecutionContext, next: CallHandler<OperationOutcome>): Observable<string> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    const call = callOf(req)!;
    const client = watchClientGone(req);
    call.signal = client.signal;
    return next.handle().pipe(
      map((outcome) => sendEnvelope(res, call, req.url, 200, toEnvelope(call.operation!, outcome))),
      finalize(() => client.release()),
    );
  }
}
