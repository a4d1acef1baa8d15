import { Redis } from 'ioredis';

/**
 * `maxRetriesPerRequest: null` is what BullMQ requires (library-facts.md): commands wait through a reconnect instead
 * of failing, which for the semaphore means a Redis blip delays admission rather than failing requests.
 */
export function redisOptions(redisUrl: string) {
  return { url: redisUrl, maxRetriesPerRequest: null };
}

/**
 * Where the queue library reports trouble it recovers from by itself (a Redis connection retrying, a BullMQ client
 * error): the process's logger, passed in by its composition root; standard error by default (tests, tools).
 */
export type QueueWarning = (message: string) => void;

export const warnOnStderr: QueueWarning = (message) => console.warn(message);

/** How often one connection may report that Redis is unreachable: it retries every few hundred ms while down. */
const ERROR_REPORT_INTERVAL_MS = 10_000;

/**
 * A connection whose errors are reported, not left unhandled: ioredis emits `error` on every failed reconnect while
 * Redis is down, and without a listener it prints "[ioredis] Unhandled error event" each time. The connection keeps
 * retrying by itself; one line per connection every 10 s says why calls are waiting.
 */
export function openRedis(redisUrl: string, purpose = 'redis', warn: QueueWarning = warnOnStderr): Redis {
  const client = new Redis(redisUrl, { maxRetriesPerRequest: null });
  let reportedAt = -Infinity;
  client.on('error', (error: Error) => {
    const now = Date.now();
    if (now - reportedAt < ERROR_REPORT_INTERVAL_MS) return;
    reportedAt = now;
    warn(`[${purpose}] Redis connection: ${error.message}`);
  });
  return client;
}

/** Key layout shared by gateways and workers: BullMQ and the admission semaphores live under one prefix. */
export const DEFAULT_PREFIX = 'loupe';
export const bullPrefix = (prefix: string) => `${prefix}:bull`;
export const admissionPrefix = (prefix: string) => `${prefix}:adm`;
