/**
 * A counting semaphore that admits waiters strictly in arrival order. A released slot is handed straight to the
 * oldest waiter, so a caller arriving at that moment cannot overtake the queue.
 */
export interface FifoSemaphore {
  /** Resolves with a release function (safe to call twice); rejects with `signal.reason` if aborted while waiting. */
  acquire(signal?: AbortSignal): Promise<() => void>;
  readonly active: number;
  readonly waiting: number;
}

interface Waiter {
  grant(): void;
}

export function createFifoSemaphore(limit: number): FifoSemaphore {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`semaphore limit must be a positive integer, got ${limit}`);
  let active = 0;
  // A Set keeps insertion order and deletes an aborted waiter in O(1).
  const waiters = new Set<Waiter>();

  const releaser = () => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = waiters.values().next();
      if (next.done) {
        active--;
        return;
      }
      waiters.delete(next.value);
      next.value.grant();
    };
  };

  return {
    acquire(signal?: AbortSignal) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (active < limit && waiters.size === 0) {
        active++;
        return Promise.resolve(releaser());
      }
      return new Promise<() => void>((resolve, reject) => {
        const onAbort = () => {
          waiters.delete(waiter);
          reject(signal?.reason);
        };
        const waiter: Waiter = {
          grant: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve(releaser());
          },
        };
        waiters.add(waiter);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
    get active() {
      return active;
    },
    get waiting() {
      return waiters.size;
    },
  };
}
