import type { Envelope } from '@loupe/envelope';
import type { PublicMatch } from '@loupe/jobs';
import type { ApiEnvelope } from '../src/api/api-envelope';

/*
 * Typed reads of the JSON bodies the end-to-end tests inspect. fetch's `json()` resolves to `unknown`; these name the
 * shapes the protocol promises, so a test that reads a field the answer does not have fails the typecheck target.
 * They do not validate: the tests' own assertions check what arrives.
 */

/** One match of a public search as the gateway answers it: the job's match with a signed `overlay` path for its id. */
export type ApiMatch = Omit<PublicMatch, 'overlay_id'> & { overlay: string };

export interface ApiSearchResults {
  total_results: number;
  total_backlinks: number;
  matches: ApiMatch[];
}

/** A search block not yet expired, as remaining_searches lists it in `bundles` (docs/protocol.md §5). */
export interface ApiBundle {
  remaining_searches: number;
  start_date: string;
  expire_date: string;
}

/** The flat fields of older clients (the dates are null for an account without a block), then the bundles. */
export interface ApiRemainingResults {
  remaining_searches: number;
  start_date: string | null;
  expire_date: string | null;
  bundles: ApiBundle[];
  total_remaining_searches: number;
}

/** `results` of each public operation when it succeeds; a refused call answers `results: []` (docs/protocol.md §5). */
export interface ApiResultsOf {
  search: ApiSearchResults;
  image_count: number;
  remaining_searches: ApiRemainingResults;
}

/** `results` of `operation`, or unknown for a name that is no operation (the answer is a refusal). */
export type ApiResults<Op extends string> = Op extends keyof ApiResultsOf ? ApiResultsOf[Op] : unknown;

/** The public index API's envelope with the results of one operation. */
export type ApiBody<R = unknown> = Omit<ApiEnvelope, 'results'> & { results: R };

/**
 * The body of a public API answer. Without `operation` the results stay unknown, for tests that read only `code` and
 * `messages` (refusals); with it they have that operation's successful shape.
 */
export async function apiBody<Op extends string = string>(res: Response, _operation?: Op): Promise<ApiBody<ApiResults<Op>>> {
  return (await res.json()) as ApiBody<ApiResults<Op>>;
}

/** The body of a collection service answer (docs/protocol.md §3). */
export async function envelopeBody(res: Response): Promise<Envelope> {
  return (await res.json()) as Envelope;
}
