/**
 * Error codes that mean a server Loupe depends on (Postgres, Redis, the blob store) could not be reached or is
 * restarting, rather than that the request or Loupe is wrong: socket errors, and Postgres's connection-exception
 * (08xxx) and operator-intervention (57P01-57P03: shut down, crash recovery, not yet accepting connections) classes.
 */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN',
  '08000', '08001', '08003', '08004', '08006', '57P01', '57P02', '57P03',
]);

/** pg reports a dropped connection without a code, in these words. */
const UNREACHABLE_MESSAGES = /^(Connection terminated|Client has encountered a connection error|Client was closed and is not queryable|timeout exceeded when trying to connect)/;

/** How long a client is asked to wait before retrying: a restarting server is usually back within seconds. */
export const RETRY_AFTER_UNAVAILABLE_S = 5;

export const UNAVAILABLE_MESSAGE =
  'The service is temporarily unavailable: a server it depends on cannot be reached. Please retry in a few seconds.';

/**
 * Whether a failure is an outage of a backing server (answered 503 with Retry-After, so clients and load balancers
 * retry) rather than a fault of Loupe's own (500). Errors from jobs carry the processor's error code with
 * them (JobFailedError.code).
 */
export function isBackendUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) return true;
  // A wrapper raised in this process (e.g. a ROLLBACK that failed after the connection was cut) keeps its reason as `cause`.
  return UNREACHABLE_MESSAGES.test(error.message) || (error.cause !== undefined && error.cause !== error && isBackendUnavailable(error.cause));
}
