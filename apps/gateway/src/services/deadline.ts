import type { DownloadScope } from '../inputs/url-fetcher';
import type { OperationContext } from './operation';

/** When the caller's `timeout` runs out (epoch ms), or undefined for no limit. */
export function deadlineOf(ctx: OperationContext): number | undefined {
  return ctx.timeoutMs ? Date.now() + ctx.timeoutMs : undefined;
}

/** Milliseconds left before the deadline (at least 1, so an expired budget still times out rather than meaning "none"). */
export function remaining(deadline: number | undefined): number | undefined {
  return deadline ? Math.max(1, deadline - Date.now()) : undefined;
}

/** The scope of a call's URL downloads: its account's share of download places, its deadline, and its caller's connection. */
export function downloadScope(ctx: OperationContext, deadline: number | undefined): DownloadScope {
  return { owner: ctx.account.name, deadline, signal: ctx.signal };
}
