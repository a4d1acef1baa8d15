import { createFifoSemaphore } from '@loupe/queue';

/**
 * Prepares `items` with at most `concurrency` preparations at once, started in the items' order, and hands each
 * outcome (value or error) to `consume` in the items' order, as soon as every earlier item has been consumed. When
 * `consume` throws, no further preparation starts, the ones running are waited for (none outlives the call), and the
 * error is rethrown: items after it are neither prepared to completion nor consumed.
 */
export async function prepareConcurrentlyConsumeInOrder<T, P>(
  items: readonly T[],
  concurrency: number,
  prepare: (item: T) => Promise<P>,
  consume: (item: T, prepared: PromiseSettledResult<P>) => Promise<void>,
): Promise<void> {
  const slots = createFifoSemaphore(Math.max(1, concurrency));
  let stopped = false;
  const outcomes = items.map(async (item): Promise<PromiseSettledResult<P> | null> => {
    const release = await slots.acquire();
    try {
      if (stopped) return null;
      return { status: 'fulfilled', value: await prepare(item) };
    } catch (reason) {
      return { status: 'rejected', reason };
    } finally {
      release();
    }
  });
  try {
    for (let i = 0; i < items.length; i++) await consume(items[i], (await outcomes[i])!);
  } catch (error) {
    stopped = true;
    await Promise.all(outcomes);
    throw error;
  }
}
