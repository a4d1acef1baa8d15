import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * Counts failed credential checks per key in windows that start at a key's first failure and end `windowSeconds`
 * later, when the count is forgotten.
 */
export interface FailureCounter {
  /** Failures of each key in its current window, and the whole seconds until that window ends (0 with no window). */
  read(keys: string[]): Promise<Array<{ failures: number; resetSeconds: number }>>;
  /** One more failure on each key; a key without a window opens one of `windowSeconds`. */
  add(keys: string[], windowSeconds: number): Promise<void>;
}

export interface ThrottleLimits {
  /** Failures from one client address, for any user or key, after which the address is refused; 0 = no limit. */
  perAddress: number;
  /** Failures for one user or key, from any address, after which addresses that have failed are refused; 0 = no limit. */
  perSubject: number;
  windowSeconds: number;
}

export interface ThrottleDecision {
  allowed: boolean;
  /** Seconds until a refused attempt may be made again (0 when allowed). */
  retryAfterSeconds: number;
}

/** Counter keys hold hashes, not the names and addresses sent, so an attacker's long junk costs a fixed size per key. */
function keyOf(kind: 'addr' | 'subj', value: string): string {
  return `${kind}:${createHash('sha256').update(value).digest('base64url').slice(0, 22)}`;
}

/**
 * Slows down password and key guessing without locking the real owner out (the failure counts never block an address
 * that has not failed itself):
 * - an address with `perAddress` failures in the window is refused outright, for every user, until its window ends;
 * - a user (or API key) with `perSubject` failures from all addresses together is under attack from many addresses:
 *   each address that has failed at least once is then refused for that user until one of the two windows ends,
 *   so a botnet gets about one guess per address and window, while the owner, from an address with no failures,
 *   still gets in with the right password.
 * Refused attempts check nothing (no scrypt, no lookup) and are not counted, so a refused attacker cannot extend the
 * window of the user it targets. Concurrent attempts from one address may overshoot a limit by their number.
 */
export class AuthThrottle {
  constructor(
    private readonly counter: FailureCounter,
    readonly limits: ThrottleLimits,
  ) {}

  async check(subject: string, address: string): Promise<ThrottleDecision> {
    const { perAddress, perSubject } = this.limits;
    if (perAddress === 0 && perSubject === 0) return { allowed: true, retryAfterSeconds: 0 };
    const [byAddress, bySubject] = await this.counter.read([keyOf('addr', address), keyOf('subj', subject)]);
    if (perAddress > 0 && byAddress.failures >= perAddress) return refused(byAddress.resetSeconds);
    if (perSubject > 0 && bySubject.failures >= perSubject && byAddress.failures > 0) {
      return refused(Math.min(byAddress.resetSeconds, bySubject.resetSeconds));
    }
    return { allowed: true, retryAfterSeconds: 0 };
  }

  async fail(subject: string, address: string): Promise<void> {
    if (this.limits.perAddress === 0 && this.limits.perSubject === 0) return;
    await this.counter.add([keyOf('addr', address), keyOf('subj', subject)], this.limits.windowSeconds);
  }
}

function refused(resetSeconds: number): ThrottleDecision {
  return { allowed: false, retryAfterSeconds: Math.max(1, resetSeconds) };
}

/** Keys tracked at most by one process: about 100 bytes each, so the cap bounds the memory to a few megabytes. */
export const MAX_TRACKED_KEYS = 50_000;

/**
 * One process's counts (embedded mode and tests). Expired windows are swept when the map is full; if it is still full,
 * the oldest windows are forgotten first, which only an attack from more addresses than the cap can cause.
 */
export class MemoryFailureCounter implements FailureCounter {
  private readonly windows = new Map<string, { failures: number; endsAt: number }>();

  constructor(
    private readonly maxKeys = MAX_TRACKED_KEYS,
    private readonly now: () => number = () => Date.now() / 1000,
  ) {}

  get size(): number {
    return this.windows.size;
  }

  async read(keys: string[]): Promise<Array<{ failures: number; resetSeconds: number }>> {
    const now = this.now();
    return keys.map((key) => {
      const window = this.windows.get(key);
      if (!window || window.endsAt <= now) return { failures: 0, resetSeconds: 0 };
      return { failures: window.failures, resetSeconds: Math.ceil(window.endsAt - now) };
    });
  }

  async add(keys: string[], windowSeconds: number): Promise<void> {
    const now = this.now();
    for (const key of keys) {
      const window = this.windows.get(key);
      if (window && window.endsAt > now) {
        window.failures += 1;
        continue;
      }
      this.windows.delete(key);
      if (this.windows.size >= this.maxKeys) this.makeRoom(now);
      this.windows.set(key, { failures: 1, endsAt: now + windowSeconds });
    }
  }

  private makeRoom(now: number): void {
    for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
    // Maps iterate in insertion order: the first keys are the oldest windows.
    for (const key of this.windows.keys()) {
      if (this.windows.size < this.maxKeys) break;
      this.windows.delete(key);
    }
  }
}

/** INCR each key, starting its window on the first failure, in one script so no key is ever left without an expiry. */
const ADD_SCRIPT = `
for i, key in ipairs(KEYS) do
  if redis.call('INCR', key) == 1 then redis.call('EXPIRE', key, ARGV[1]) end
end
return 0
`;

/** The counts in Redis, shared by every gateway replica; Redis expires the windows itself, so memory stays bounded. */
export class RedisFailureCounter implements FailureCounter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async read(keys: string[]): Promise<Array<{ failures: number; resetSeconds: number }>> {
    const pipeline = this.redis.pipeline();
    for (const key of keys) pipeline.get(this.key(key)).ttl(this.key(key));
    const replies = (await pipeline.exec()) ?? [];
    return keys.map((_, i) => {
      const [countError, count] = replies[2 * i] ?? [];
      const [ttlError, ttl] = replies[2 * i + 1] ?? [];
      if (countError || ttlError) throw countError ?? ttlError;
      return { failures: Number(count ?? 0), resetSeconds: Math.max(0, Number(ttl)) };
    });
  }

  async add(keys: string[], windowSeconds: number): Promise<void> {
    await this.redis.eval(ADD_SCRIPT, keys.length, ...keys.map((key) => this.key(key)), String(windowSeconds));
  }

  private key(key: string): string {
    return `${this.prefix}:authfail:${key}`;
  }
}
