/**
 * A gateway that takes a write slot and never gives it back: the test SIGKILLs it to show its lease expires.
 * argv: redisUrl prefix group leaseMs
 */
import { createRedisSemaphore } from '../redis/redis-semaphore';

const [redisUrl, prefix, group, leaseMs] = process.argv.slice(2);
const semaphore = createRedisSemaphore({ redisUrl, prefix, leaseMs: Number(leaseMs) });
semaphore.acquire({ group, cls: 'write' }, 1).then(
  () => process.stdout.write('held\n'),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
