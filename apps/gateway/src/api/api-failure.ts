import { ParamError, PayloadTooLargeError } from '@loupe/envelope';
import { PublicSearchError } from '@loupe/jobs';
import { JobFailedError, QueueErrorCode } from '@loupe/queue';
import { ApiError } from './api-envelope';

/** Processor refusals and their error names (docs/protocol.md §5). */
const REFUSAL_NAMES: Readonly<Record<string, string>> = {
  [PublicSearchError.BadImage]: 'BAD_REQUEST',
  [PublicSearchError.NoSignature]: 'NO_SIGNATURE_ERROR',
};

export interface ApiFailure {
  code: number;
  /** docs/protocol.md §5: an error name, then a description a person can act on. */
  messages: [string, string];
  headers?: Record<string, string>;
}

/** The answer of a public API call that failed, or undefined for a fault (500 or 503, logged by the filter). */
export function apiFailure(error: unknown): ApiFailure | undefined {
  if (error instanceof ApiError) return { code: error.code, messages: [error.errorName, error.description], headers: error.headers };
  if (error instanceof ParamError) return { code: 400, messages: ['BAD_REQUEST', error.message] };
  if (error instanceof JobFailedError && error.code && REFUSAL_NAMES[error.code]) return { code: 400, messages: [REFUSAL_NAMES[error.code], error.message] };
  // No worker took the search within QUEUE_PICKUP_TIMEOUT_MS: the service is down for now, not the request wrong.
  if (error instanceof JobFailedError && error.code === QueueErrorCode.NoWorker) return { code: 503, messages: ['SERVICE_UNAVAILABLE', error.message], headers: { 'retry-after': '30' } };
  // Closing the connection stops the client's upload at once; kept open, Node would read the rest and discard it.
  if (error instanceof PayloadTooLargeError) return { code: 413, messages: ['REQUEST_TOO_LARGE', error.message], headers: { connection: 'close' } };
  return undefined;
}
