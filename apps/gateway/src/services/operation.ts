import type { Params, Stats, Status } from '@loupe/envelope';
import type { AccountRow } from '@loupe/storage';

export const SERVICE_NAMES = ['mobile', 'match', 'color', 'wine'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** What an operation handler receives: the authenticated account, its typed inputs, and the caller's deadline. */
export interface OperationContext {
  service: ServiceName;
  account: AccountRow;
  params: Params;
  /** Milliseconds left for queued work, from the `timeout` common parameter; undefined means no limit. */
  timeoutMs?: number;
  /** Aborted when the caller disconnects before its answer is sent, so that work done only for it (downloads) stops. */
  signal?: AbortSignal;
}

/** What an operation returns; the dispatcher adds `method` and `time_total` and renders it. */
export interface OperationOutcome {
  result: unknown[];
  errors?: string[];
  /** When absent the status follows from the errors and whether the result or the work is non-empty. */
  status?: Status;
  query_image?: Record<string, unknown>;
  stats: Stats;
}

export type Operation = (ctx: OperationContext) => Promise<OperationOutcome>;
export type OperationTable = Readonly<Record<string, Operation>>;
