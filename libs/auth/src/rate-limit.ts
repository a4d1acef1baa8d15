import type { Redis } from 'ioredis';

/**
 * Search rate limit of the public index API (docs/protocol.md §5: 30 per minute by default). A token bucket: a key may
 * burst up to the per-minute limit, then gets one search back every 60/limit seconds. Unlike fixed windows it never
 * lets 2 × limit through around a window edge.
 */
export interface RateDecision {
  allowed: boolean;
  /** Seconds until the next search would be allowed (0 when allowed). */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  take(bucket: string, perMinute: number): Promise<RateDecision>;
}

export interface BucketState {
  tokens: number;
  /** Unix seconds of the last update. */
  updatedAt: number;
}

/** The pure step: refill since the last update, then take one token if there is one. */
export function takeToken(state: BucketState | undefined, perMinute: number, now: number): { state: BucketState; decision: RateDecision } {
  const rate = perMinute / 60;
  const refilled = state ? Math.min(perMinute, state.tokens + Math.max(0, now - state.updatedAt) * rate) : perMinute;
  if (refilled >= 1) return { state: { tokens: refilled - 1, updatedAt: now }, decision: { allowed: true, retryAfterSeconds: 0 } };
  return { state: { tokens: refilled, updatedAt: now }, decision: { allowed: false, retryAfterSeconds: Math.ceil((1 - refilled) / rate) } };
}

export class MemoryRateLimiter implements RateLimiter {
  private readonly buckets = new Map<string, BucketState>();

  constructor(private readonly now: () => number = () => Date.now() / 1000) {}

  async take(bucket: string, perMinute: number): Promise<RateDecision> {
    const { state, decision } = takeToken(this.buckets.get(bucket), perMinute, this.now());
    this.buckets.set(bucket, state);
    return decision;
  }
}

/**
 * The same bucket in Redis, updated by one Lua script so concurrent gateways cannot both spend the last token.
 * Time comes from the Redis server (TIME), so gateway clocks need not agree.
 */
const TAKE_SCRIPT = `
local perMinute = tonumber(ARGV[1])
local rate = perMinute / 60
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = perMinute
if state[1] then
  tokens = math.min(perMinute, tonumber(state[1]) + math.max(0, now - tonumber(state[2])) * rate)
end
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('EXPIRE', KEYS[1], 120)
local wait = 0
if allowed == 0 then wait = math.ceil((1 - tokens) / rate) end
return {allowed, wait}
`;

export class RedisRateLimiter implements RateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async take(bucket: string, perMinute: number): Promise<RateDecision> {
    const [allowed, wait] = (await this.redis.eval(TAKE_SCRIPT, 1, `${this.prefix}:rate:${bucket}`, String(perMinute))) as [number, number];
    return { allowed: allowed === 1, retryAfterSeconds: Number(wait) };
  }
}
