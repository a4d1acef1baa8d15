import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request, Response } from 'express';
import { finalize, map, Observable } from 'rxjs';
import { watchClientGone } from '../http/client-gone';
import { apiCallOf, ApiCallState } from './api-call';
import { apiEnvelope, renderApiEnvelope } from './api-envelope';

/** An API operation's answer: its results and the messages beside them. */
export interface ApiOutcome {
  results: unknown;
  messages: string[];
}

/** Renders a public API call's envelope (docs/protocol.md §5) on the response, with the call's timings and `pretty`. */
export function sendApiEnvelope(res: Response, call: ApiCallState, code: number, messages: string[], results: unknown, headers: Record<string, string> = {}): string {
  res.status(code).set({ 'content-type': 'application/json; charset=utf-8', ...headers });
  call.answered?.(code);
  return renderApiEnvelope(apiEnvelope(code, messages, results, call.startedAt, Date.now() - call.startedAt), call.pretty);
}

/** Around every public API operation: a signal that aborts when the client goes away, and the answer's envelope. */
@Injectable()
export class ApiEnvelopeInterceptor implements NestInterceptor<ApiOutcome, string> {
  intercept(context: ExecutionContext, next: CallHandler<ApiOutcome>): Observable<string> {
    const req = context.switchToHttp().getRequest<Request>();
    const res = context.switchToHttp().getResponse<Response>();
    const call = apiCallOf(req)!;
    const client = watchClientGone(req);
    call.signal = client.signal;
    return next.handle().pipe(
      map((outcome) => sendApiEnvelope(res, call, 200, outcome.messages, outcome.results)),
      finalize(() => client.release()),
    );
  }
}
