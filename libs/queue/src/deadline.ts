/**
 * One budget per `run` call, shared by the wait for admission and the job itself. Exposed as an AbortSignal so the
 * semaphores can drop a waiter the moment the budget runs out.
 */
export interface Deadline {
  readonly signal: AbortSignal;
  readonly timeoutMs: number | undefined;
  /** True once the budget has run out (the signal has fired). */
  readonly expired: boolean;
  remainingMs(): number | undefined;
  clear(): void;
}

export function startDeadline(timeoutMs: number | undefined): Deadline {
  const controller = new AbortController();
  const endsAt = timeoutMs === undefined ? undefined : Date.now() + timeoutMs;
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => controller.abort(DEADLINE_REASON), timeoutMs);
  return {
    signal: controller.signal,
    timeoutMs,
    get expired() {
      return controller.signal.aborted;
    },
    remainingMs: () => (endsAt === undefined ? undefined : Math.max(0, endsAt - Date.now())),
    clear: () => clearTimeout(timer),
  };
}

/** The abort reason of an expired deadline, so callers can tell it from other aborts. */
export const DEADLINE_REASON = Object.freeze(new Error('deadline expired'));

export type Raced<T> = { done: true; value: T } | { done: false };

/** Waits for `work` or the signal, whichever comes first. `work` keeps running: the caller decides what to do with it. */
export function raceSignal<T>(work: Promise<T>, signal: AbortSignal): Promise<Raced<T>> {
  if (signal.aborted) return Promise.resolve({ done: false });
  return new Promise<Raced<T>>((resolve, reject) => {
    const onAbort = () => resolve({ done: false });
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve({ done: true, value });
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
