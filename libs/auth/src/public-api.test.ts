import { describe, expect, it } from 'vitest';
import { parseApiKeysSpec } from './api-keys';
import { seedApiKey } from './api-key-seed';
import { MemoryNonceStore, RedisNonceStore } from './nonce-store';
import { MemoryRateLimiter, RedisRateLimiter, takeToken } from './rate-limit';
import { Redis } from 'ioredis';

describe('API_KEYS', () => {
  it('parses public:private:searches and the account-qualified form', () => {
    expect(parseApiKeysSpec('pub1:priv1:100, acme:pub2:priv2:5')).toEqual([
      { account: 'pub1', publicKey: 'pub1', privateKey: 'priv1', searches: 100 },
      { account: 'acme', publicKey: 'pub2', privateKey: 'priv2', searches: 5 },
    ]);
    expect(parseApiKeysSpec(undefined)).toEqual([]);
    expect(() => parseApiKeysSpec('pub:priv')).toThrow(/public:private:searches/);
    expect(() => parseApiKeysSpec('pub:priv:many')).toThrow(/number of searches/);
  });

  it('gives a seeded account a block once, never refilling it on restart', async () => {
    const blocks: number[] = [];
    const store = {
      ensureAccount: async () => ({ id: 7 }),
      upsertKey: async () => undefined,
      blockCount: async () => blocks.length,
      addBlock: async (_id: number, n: number) => void blocks.push(n),
    };
    const seed = parseApiKeysSpec('pub:priv:30')[0];
    await seedApiKey(store, seed);
    await seedApiKey(store, seed);
    expect(blocks).toEqual([30]);
  });
});

describe('nonce store', () => {
  it('lets a nonce through once until it expires', async () => {
    let now = 1000;
    const store = new MemoryNonceStore(() => now);
    expect(await store.claim('k', 'nonce-aaaa', 1900)).toBe(true);
    expect(await store.claim('k', 'nonce-aaaa', 1900)).toBe(false);
    expect(await store.claim('other', 'nonce-aaaa', 1900)).toBe(true);
    now = 1901;
    expect(await store.claim('k', 'nonce-aaaa', 2800)).toBe(true);
  });
});

describe('rate limit', () => {
  it('allows a burst of the per-minute limit, then one search per 60/limit seconds', () => {
    let state;
    const decisions: boolean[] = [];
    for (let i = 0; i < 31; i++) {
      const step = takeToken(state, 30, 100);
      state = step.state;
      decisions.push(step.decision.allowed);
    }
    expect(decisions.filter(Boolean)).toHaveLength(30);
    const refused = takeToken(state, 30, 100);
    expect(refused.decision).toEqual({ allowed: false, retryAfterSeconds: 2 });
    expect(takeToken(refused.state, 30, 102).decision.allowed).toBe(true);
  });

  it('keeps buckets apart per key', async () => {
    const limiter = new MemoryRateLimiter(() => 0);
    expect((await limiter.take('a', 1)).allowed).toBe(true);
    expect((await limiter.take('a', 1)).allowed).toBe(false);
    expect((await limiter.take('b', 1)).allowed).toBe(true);
  });
});

describe.skipIf(!process.env.TEST_REDIS_URL)('Redis nonce store and rate limit (TEST_REDIS_URL)', () => {
  it('claims a nonce once across connections and limits searches atomically', async () => {
    const a = new Redis(process.env.TEST_REDIS_URL!);
    const b = new Redis(process.env.TEST_REDIS_URL!);
    const prefix = `loupe-test-${Math.random().toString(36).slice(2)}`;
    try {
      const claims = await Promise.all([a, b, a, b].map((r) => new RedisNonceStore(r, prefix).claim('k', 'nonce-race', Date.now() / 1000 + 60)));
      expect(claims.filter(Boolean)).toHaveLength(1);
      const limiters = [new RedisRateLimiter(a, prefix), new RedisRateLimiter(b, prefix)];
      const decisions = await Promise.all(Array.from({ length: 12 }, (_, i) => limiters[i % 2].take('k', 10)));
      expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    } finally {
      a.disconnect();
      b.disconnect();
    }
  });
});
