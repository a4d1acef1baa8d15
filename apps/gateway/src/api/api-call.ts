import type { ApiKeyRow } from '@loupe/storage';
import type { Params } from '@loupe/envelope';
import type { IncomingMessage } from 'node:http';
import type { ApiAuthService } from './api-auth.service';
import type { KeyHeaderAuth } from './key-header-auth';
import type { PublicApiService } from './public-api.service';
import type { BodyLimits } from '../http/read-params';

/** The `service` label of public API calls in loupe_requests_total, beside the collection services' names. */
export const PUBLIC_API_SERVICE = 'api';

/** The public API's operations, each a handler of ApiController; anything else is 404 before its body is read. */
export const API_OPERATIONS = ['search', 'image_count', 'remaining_searches'] as const;

/** What the public API's HTTP path is built on (createPublicApi). */
export interface ApiWiring {
  service: PublicApiService;
  auth: ApiAuthService;
  keyHeader: KeyHeaderAuth;
  limits: BodyLimits;
}
export const API_WIRING = Symbol('API_WIRING');

/**
 * One public API call as it goes through the middleware, guard, interceptor and filter: whichever answers renders the
 * envelope of docs/protocol.md §5 (indented with `pretty`, its timestamps from the call's arrival) and counts it.
 */
export interface ApiCallState {
  /** Epoch ms of arrival: the envelope's `timestamp`, and `query_time` runs from here. */
  startedAt: number;
  /** `pretty` of the query string, then of the parameters once read. */
  pretty: boolean;
  operation?: string;
  key?: ApiKeyRow;
  params?: Params;
  signal?: AbortSignal;
  /** Told once the answer is rendered (ApiTelemetry counts it then), also when the client has gone. */
  answered?: (status: number) => void;
}

const STATE = Symbol('loupe api call');

export function beginApiCall(req: IncomingMessage): ApiCallState {
  const state: ApiCallState = { startedAt: Date.now(), pretty: /[?&]pretty=(true|1)(&|$)/i.test(req.url ?? '') };
  (req as unknown as Record<symbol, ApiCallState>)[STATE] = state;
  return state;
}

export function apiCallOf(req: IncomingMessage): ApiCallState | undefined {
  return (req as unknown as Record<symbol, ApiCallState | undefined>)[STATE];
}

export function isApiOperation(name: string | undefined): boolean {
  return (API_OPERATIONS as readonly string[]).includes(name ?? '');
}
