import type { Server } from 'node:http';
import type { AppConfig } from '@loupe/runtime';

/** Request line plus headers, in bytes; more is answered 431. Node's default, stated here so that it cannot drift. */
export const MAX_HEADER_BYTES = 16 * 1024;

/** Header lines read per request (Node's default is 2000); clients send about ten, the rest are dropped unread. */
export const MAX_HEADERS_COUNT = 100;

/**
 * Node checks the headers and request timeouts on a timer, every `connectionsCheckingInterval` (30 s by default),
 * so a 15 s limit could let a trickling client stay 45 s. A quarter of the shortest limit, within 100 ms..1 s, keeps
 * the overshoot small at the cost of one walk over open connections per tick.
 */
export function checkingIntervalMs(limits: AppConfig['http']): number {
  const enforced = [limits.headersTimeoutMs, limits.requestTimeoutMs].filter((ms) => ms > 0);
  if (enforced.length === 0) return 30_000;
  return Math.min(1_000, Math.max(100, Math.floor(Math.min(...enforced) / 4)));
}

/**
 * Applies the slow-client limits to the gateway's HTTP server: trickled headers (slowloris) and trickled bodies are
 * answered 408 and their sockets closed, idle keep-alive sockets are closed, and header size and count are bounded.
 * Must run before `listen`: Node starts the timeout checker with the interval set at that moment.
 */
export function applyServerLimits(server: Server, limits: AppConfig['http']): void {
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxHeadersCount = MAX_HEADERS_COUNT;
  // Both are read by Node from the server object (at each connection, and when listening starts) although only the
  // createServer options declare them.
  const tunable = server as Server & { maxHeaderSize?: number; connectionsCheckingInterval?: number };
  tunable.maxHeaderSize = MAX_HEADER_BYTES;
  tunable.connectionsCheckingInterval = checkingIntervalMs(limits);
}
