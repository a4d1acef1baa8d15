import type { Redis } from 'ioredis';

/**
 * Remembers nonces so a signed request cannot be replayed while its date is still acceptable. `claim` is atomic:
 * of two requests racing with one nonce, exactly one gets true, on every replica sharing the store.
 */
export interface NonceStore {
  /** True when the nonce was unused for this key; records it until `expiresAt` (Unix seconds). */
  claim(publicKey: string, nonce: string, expiresAt: number): Promise<boolean>;
}

/** One process's memory: tests and tools. Expired entries are swept as new ones arrive. */
export class MemoryNonceStore implements NonceStore {
  private readonly seen = new Map<string, number>();

  constructor(private readonly now: () => number = () => Date.now() / 1000) {}

  async claim(publicKey: string, nonce: string, expiresAt: number): Promise<boolean> {
    const now = this.now();
    const key = `${publicKey}\u0000${nonce}`;
    const until = this.seen.get(key);
    if (until !== undefined && until > now) return false;
    this.seen.set(key, expiresAt);
    if (this.seen.size % 1024 === 0) for (const [k, t] of this.seen) if (t <= now) this.seen.delete(k);
    return true;
  }
}

/** Redis: `SET key 1 NX EX ttl`, one round trip, expired by Redis itself. */
export class RedisNonceStore implements NonceStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly now: () => number = () => Date.now() / 1000,
  ) {}

  async claim(publicKey: string, nonce: string, expiresAt: number): Promise<boolean> {
    const ttl = Math.max(1, Math.ceil(expiresAt - this.now()));
    const answer = await this.redis.set(`${this.prefix}:nonce:${publicKey}:${nonce}`, '1', 'EX', ttl, 'NX');
    return answer === 'OK';
  }
}
