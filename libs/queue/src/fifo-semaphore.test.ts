import { describe, expect, it } from 'vitest';
import { createFifoSemaphore } from './fifo-semaphore';

describe('fair FIFO semaphore', () => {
  it('admits up to the limit at once and queues the rest', async () => {
    const semaphore = createFifoSemaphore(2);
    await semaphore.acquire();
    await semaphore.acquire();
    let third = false;
    void semaphore.acquire().then(() => (third = true));
    await Promise.resolve();
    expect(third).toBe(false);
    expect(semaphore.active).toBe(2);
    expect(semaphore.waiting).toBe(1);
  });

  it('hands a released slot to the oldest waiter, not to a caller arriving at that moment', async () => {
    const semaphore = createFifoSemaphore(1);
    const release = await semaphore.acquire();
    const order: string[] = [];
    const waiting = ['a', 'b', 'c'].map((id) => semaphore.acquire().then((done) => (order.push(id), done)));
    release();
    const latecomer = semaphore.acquire().then((done) => (order.push('late'), done));
    for (const next of [...waiting, latecomer]) (await next)();
    expect(order).toEqual(['a', 'b', 'c', 'late']);
    expect(semaphore.active).toBe(0);
  });

  it('counts a release called twice only once', async () => {
    const semaphore = createFifoSemaphore(1);
    const release = await semaphore.acquire();
    const second = semaphore.acquire();
    release();
    release();
    await second;
    expect(semaphore.active).toBe(1);
    expect(semaphore.waiting).toBe(0);
  });

  it('drops an aborted waiter so the next one gets the slot', async () => {
    const semaphore = createFifoSemaphore(1);
    const release = await semaphore.acquire();
    const controller = new AbortController();
    const aborted = semaphore.acquire(controller.signal);
    const next = semaphore.acquire();
    controller.abort(new Error('gave up'));
    await expect(aborted).rejects.toThrow('gave up');
    expect(semaphore.waiting).toBe(1);
    release();
    await next;
    expect(semaphore.active).toBe(1);
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => createFifoSemaphore(0)).toThrow(RangeError);
    expect(() => createFifoSemaphore(1.5)).toThrow(RangeError);
  });
});
