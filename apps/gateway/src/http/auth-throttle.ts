import { AuthThrottle, MemoryFailureCounter, RedisFailureCounter } from '@loupe/auth';
import type { AppConfig } from '@loupe/runtime';
import { openRedis, type QueueWarning } from '@loupe/queue';

/**
 * The failed-sign-in throttle shared by Basic auth and the public API's key checks: counted in Redis when REDIS_URL is
 * set, so every gateway replica sees the same failures (an attacker gains nothing by spreading guesses over them), and
 * in this process's memory otherwise (embedded mode runs one gateway).
 */
export function createAuthThrottle(config: AppConfig, warn?: QueueWarning): { throttle: AuthThrottle; close(): Promise<void> } {
  if (!config.redisUrl) return { throttle: new AuthThrottle(new MemoryFailureCounter(), config.authThrottle), close: async () => undefined };
  // Like the nonce store's connection: commands wait for a reconnect rather than fail while Redis restarts.
  const redis = openRedis(config.redisUrl, 'auth throttle', warn);
  return {
    throttle: new AuthThrottle(new RedisFailureCounter(redis, config.redisPrefix), config.authThrottle),
    close: async () => void (await redis.quit().catch(() => undefined)),
  };
}
