import { ParamError, Params, PayloadTooLargeError, quoteInput } from '@loupe/envelope';
import { PublicSearchError } from '@loupe/jobs';
import { JobFailedError, QueueErrorCode } from '@loupe/queue';
import { isBackendUnavailable, RETRY_AFTER_UNAVAILABLE_S, UNAVAILABLE_MESSAGE } from '../http/unavailable';
import type { Metrics } from '@loupe/runtime';
import type { IncomingMessage } from 'node:http';
import type { BodyLimits } from '../http/read-params';
import { watchClientGone } from '../http/client-gone';
import type { HttpAnswer } from '../http/envelopes';
import { ApiAuthService } from './api-auth.service';
import { apiEnvelope, ApiError, renderApiEnvelope } from './api-envelope';
import { KeyHeaderAuth } from './key-header-auth';
import { ApiCall, PublicApiService } from './public-api.service';
import { readApiRequest } from './read-api-request';

/** The `service` label of public API calls in loupe_requests_total, beside the collection services' names. */
export const PUBLIC_API_SERVICE = 'api';

type ApiOperation = (call: ApiCall) => Promise<{ results: unknown; messages: string[] }>;

/** Processor refusals and the specification's error names (section 7). */
const REFUSAL_NAMES: Readonly<Record<string, string>> = {
  [PublicSearchError.BadImage]: 'BAD_REQUEST',
  [PublicSearchError.NoSignature]: 'NO_SIGNATURE_ERROR',
};

/**
 * One public index API call, from HTTP request to the envelope of specification 2.9: read the request, check the
 * signature (or the `x-api-key` header of key-header clients), run the operation, and answer every failure with its
 * code and the two messages (name, description).
 */
export class ApiDispatcher {
  private readonly operations: Readonly<Record<string, ApiOperation>>;

  constructor(
    private readonly auth: ApiAuthService,
    readonly service: PublicApiService,
    private readonly limits: BodyLimits,
    private readonly log: (message: string, error?: unknown) => void = () => undefined,
    private readonly keyHeader?: KeyHeaderAuth,
    private readonly metrics?: Metrics,
  ) {
    this.operations = {
      search: (call) => service.search(call),
      image_count: async (call) => ({ results: await service.imageCount(call), messages: [] }),
      remaining_searches: (call) => service.remainingSearches(call),
    };
  }

  async handle(req: IncomingMessage, operation: string): Promise<HttpAnswer> {
    const startedAt = Date.now();
    let pretty = /[?&]pretty=(true|1)(&|$)/i.test(req.url ?? '');
    const answer = (code: number, messages: string[], results: unknown, headers: Record<string, string> = {}): HttpAnswer => {
      // The operation label comes from the table, never from the URL: probing random paths creates no metric series.
      const known = Object.prototype.hasOwnProperty.call(this.operations, operation);
      this.metrics?.observe(PUBLIC_API_SERVICE, known ? operation : 'unknown', code === 200 ? 'ok' : String(code), (Date.now() - startedAt) / 1000);
      return {
        status: code,
        headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
        body: renderApiEnvelope(apiEnvelope(code, messages, results, startedAt, Date.now() - startedAt), pretty),
      };
    };
    const client = watchClientGone(req);
    try {
      const run = Object.prototype.hasOwnProperty.call(this.operations, operation) ? this.operations[operation] : undefined;
      if (!run) throw new ApiError(404, 'NOT_FOUND', `There is no operation ${quoteInput(operation)}; the operations are search, image_count and remaining_searches.`);
      const data = await readApiRequest(req, this.limits);
      const params = new Params(data.pairs, data.files);
      pretty = params.bool('pretty', pretty);
      const headerKey = this.keyHeader?.requested(req, data);
      const key = headerKey !== undefined ? await this.keyHeader!.authenticate(req, headerKey) : await this.auth.authenticate(req, data);
      const outcome = await run({ key, params, signal: client.signal });
      return answer(200, outcome.messages, outcome.results);
    } catch (error) {
      if (error instanceof ApiError) return answer(error.code, [error.errorName, error.description], [], error.headers);
      if (error instanceof ParamError) return answer(400, ['BAD_REQUEST', error.message], []);
      if (error instanceof JobFailedError && error.code && REFUSAL_NAMES[error.code]) return answer(400, [REFUSAL_NAMES[error.code], error.message], []);
      // No worker took the search within QUEUE_PICKUP_TIMEOUT_MS: the service is down for now, not the request wrong.
      if (error instanceof JobFailedError && error.code === QueueErrorCode.NoWorker) return answer(503, ['SERVICE_UNAVAILABLE', error.message], [], { 'retry-after': '30' });
      // Closing the connection stops the client's upload at once; kept open, Node would read the rest and discard it.
      if (error instanceof PayloadTooLargeError) return answer(413, ['REQUEST_TOO_LARGE', error.message], [], { connection: 'close' });
      this.log(`api/${operation} failed`, error);
      if (isBackendUnavailable(error)) return answer(503, ['SERVICE_UNAVAILABLE', UNAVAILABLE_MESSAGE], [], { 'retry-after': String(RETRY_AFTER_UNAVAILABLE_S) });
      return answer(500, ['INTERNAL_ERROR', 'An internal error occurred; it has been logged.'], []);
    } finally {
      client.release();
    }
  }

  async overlay(publicKey: string, file: string): Promise<{ status: number; headers: Record<string, string>; body: Buffer | string }> {
    const jpeg = await this.service.overlay(publicKey, file);
    if (!jpeg) return { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'No such overlay, or its link has expired.' };
    return { status: 200, headers: { 'content-type': 'image/jpeg', 'cache-control': 'private, max-age=3600' }, body: jpeg };
  }
}
