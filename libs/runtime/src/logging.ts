import { AsyncLocalStorage } from 'node:async_hooks';
import pino, { Logger } from 'pino';

/** JSON logs on stdout (one object per line), at `level` (the configuration's LOG_LEVEL). */
export function createLogger(name: string, level: string): Logger {
  return pino({ name, level, base: { app: name }, timestamp: pino.stdTimeFunctions.isoTime });
}

/** A `(message)` callback for trouble a library recovers from by itself (the queue's Redis connections): a warning. */
export function warnTo(log: Logger): (message: string) => void {
  return (message) => log.warn(message);
}

/** A `(message, error?)` callback for background work (sweeps, migrations): a warning with the error, else info. */
export function reportTo(log: Logger): (message: string, error?: unknown) => void {
  return (message, error) => (error ? log.warn({ err: error instanceof Error ? error.message : String(error) }, message) : log.info(message));
}

/**
 * The request id of the HTTP call being served, carried through async calls so that the queue can attach it to the
 * job it enqueues and the worker can log it: one id follows a call from gateway to worker.
 */
export const requestContext = new AsyncLocalStorage<{ requestId: string }>();

export function currentRequestId(): string | undefined {
  return requestContext.getStore()?.requestId;
}
