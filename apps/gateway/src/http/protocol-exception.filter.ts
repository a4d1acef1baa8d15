import { failEnvelope, quoteInput, renderEnvelope, shortInput } from '@loupe/envelope';
import { ArgumentsHost, Catch, HttpStatus, Logger } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import type { Request, Response } from 'express';
import { apiEnvelope, renderApiEnvelope } from '../api/api-envelope';
import { earlyFormat } from './collection-dispatcher';

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
 * Answers what Nest itself raises before any controller runs (no route for the path, a path that cannot be decoded)
 * and anything a handler let escape, in the protocol of the path: the collection services' `fail` envelope (JSON or
 * XML per `format`) or the public API's envelope, never Nest's default `{"statusCode":…}` JSON, which no client of
 * either protocol can read. Paths of neither protocol (health, docs, console) keep Nest's own answers, except that a
 * path no route serves gets the collection envelope, the gateway's main protocol.
 */
@Catch()
export class ProtocolExceptionFilter extends BaseExceptionFilter {
  private readonly logger = new Logger('ProtocolExceptionFilter');

  override catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') return super.catch(exception, host);
    const req = host.switchToHttp().getRequest<Request>();
    const res = host.switchToHttp().getResponse<Response>();
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
}
