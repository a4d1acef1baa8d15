import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { bullPrefix, DEFAULT_PREFIX, redisOptions } from '../redis/connection';

/**
 * BullMQ queue handles for dashboards (bull-board) and probes, named exactly as the adapters name them (one queue per
 * job kind under `<prefix>:bull`). They only read and manage jobs; they never process them.
 */
export function openDashboardQueues(opts: { redisUrl: string; prefix?: string; kinds: readonly string[] }): { queues: Queue[]; close(): Promise<void> } {
  const connection = redisOptions(opts.redisUrl);
  const queues = opts.kinds.map((kind) => new Queue(kind, { connection, prefix: bullPrefix(opts.prefix ?? DEFAULT_PREFIX) }));
  return { queues, close: async () => void (await Promise.all(queues.map((q) => q.close()))) };
}

/**
 * Answers when Redis answers PING; for readiness probes. A throwaway client that never retries: the queue's own
 * connections wait through outages by design, which is exactly what a probe must not do.
 */
export async function pingRedis(redisUrl: string): Promise<void> {
  const client = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1_500, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
  } finally {
    client.disconnect();
  }
}
