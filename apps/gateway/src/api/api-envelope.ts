/**
 * The public index API's envelope (docs/protocol.md §5), unlike the collection services' one: `stats` with string
 * `timestamp` and `query_time`, `code` (the HTTP status), `messages`, and operation-specific `results`.
 */
export interface ApiEnvelope {
  stats: { timestamp: string; query_time: string };
  code: number;
  messages: string[];
  results: unknown;
}

/**
 * A refused call: `code` is the HTTP status, and the messages are the pair of docs/protocol.md §5: an error
 * name, then a description a person can act on.
 */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly errorName: string,
    readonly description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(`${errorName}: ${description}`);
    this.name = 'ApiError';
  }
}

/** Seconds as the public format writes them: a string with two decimals ("1435951101.62", "0.21"). */
export function secondsText(ms: number): string {
  return (ms / 1000).toFixed(2);
}

export function apiEnvelope(code: number, messages: string[], results: unknown, startedAtMs: number, elapsedMs: number): ApiEnvelope {
  return { stats: { timestamp: secondsText(startedAtMs), query_time: secondsText(elapsedMs) }, code, messages, results };
}

/** JSON, indented when `pretty=true` (docs/protocol.md §5). */
export function renderApiEnvelope(envelope: ApiEnvelope, pretty: boolean): string {
  return pretty ? `${JSON.stringify(envelope, null, 2)}\n` : JSON.stringify(envelope);
}
