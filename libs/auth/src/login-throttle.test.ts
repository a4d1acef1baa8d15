import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AuthThrottle, clientAddress, FailureCounter, MemoryFailureCounter, RedisFailureCounter } from './index';

describe('client address', () => {
  const req = (remoteAddress: string | undefined, forwardedFor?: string | string[]) =>
    ({ headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor }, socket: { remoteAddress } }) as never;

  it('is the socket peer, IPv4-mapped IPv6 as IPv4 and IPv6 per /64', () => {
    expect(clientAddress(req('203.0.113.9'), false)).toBe('203.0.113.9');
    expect(clientAddress(req('::ffff:127.0.0.1'), false)).toBe('127.0.0.1');
    expect(clientAddress(req('2001:db8:1:2:aaaa::1'), false)).toBe('2001:db8:1:2::/64');
    expect(clientAddress(req('2001:db8:1:2:bbbb::9'), false)).toBe('2001:db8:1:2::/64');
    expect(clientAddress(req(undefined), false)).toBe('unknown');
  });

  it('takes the last X-Forwarded-For entry only behind a trusted proxy', () => {
    expect(clientAddress(req('10.0.0.1', '6.6.6.6, 198.51.100.4'), true)).toBe('198.51.100.4');
    expect(clientAddress(req('10.0.0.1', ['6.6.6.6', '198.51.100.4:5555']), true)).toBe('198.51.100.4');
    expect(clientAddress(req('10.0.0.1', '[2001:db8::1]:443'), true)).toBe('2001:db8:0:0::/64');
    expect(clientAddress(req('10.0.0.1', '6.6.6.6, 198.51.100.4'), false)).toBe('10.0.0.1');
    expect(clientAddress(req('10.0.0.1', ''), true)).toBe('10.0.0.1');
  });
});

/** The policy, against either store: the same expectations hold for one process and for Redis. */
function policySuite(name: string, counter: () => Promise<{ counter: FailureCounter; close(): Promise<void> }>, windowSeconds: number, wait: () => Promise<void>) {
  describe(`throttle policy (${name})`, () => {
    it('refuses an address after perAddress failures, a failed address for a user after perSubject, and forgets after the window', async () => {
      const { counter: store, close } = await counter();
      try {
        const throttle = new AuthThrottle(store, { perAddress: 3, perSubject: 4, windowSeconds });
        for (let i = 0; i < 3; i++) {
          expect((await throttle.check('alice', 'a1')).allowed).toBe(true);
          await throttle.fail('alice', 'a1');
        }
        const refused = await throttle.check('bob', 'a1');
        expect(refused.allowed).toBe(false);
        expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
        expect(refused.retryAfterSeconds).toBeLessThanOrEqual(windowSeconds);
        // alice has 3 failures; one more from another address puts her over perSubject.
        await throttle.fail('alice', 'a2');
        expect((await throttle.check('alice', 'a2')).allowed).toBe(false);
        expect((await throttle.check('alice', 'clean')).allowed).toBe(true);
        expect((await throttle.check('bob', 'a2')).allowed).toBe(true);
        await wait();
        expect((await throttle.check('alice', 'a1')).allowed).toBe(true);
        expect((await throttle.check('alice', 'a2')).allowed).toBe(true);
      } finally {
        await close();
      }
    });
  });
}

let clock = 0;
policySuite(
  'memory',
  async () => ({ counter: new MemoryFailureCounter(1000, () => clock), close: async () => undefined }),
  60,
  async () => {
    clock += 61;
  },
);

describe('memory failure counter', () => {
  it('holds at most maxKeys windows, dropping expired ones first, then the oldest', async () => {
    let now = 0;
    const counter = new MemoryFailureCounter(100, () => now);
    for (let i = 0; i < 50; i++) await counter.add([`old-${i}`], 10);
    now = 5;
    for (let i = 0; i < 50; i++) await counter.add([`live-${i}`], 10);
    now = 11;
    for (let i = 0; i < 500; i++) await counter.add([`new-${i}`], 10);
    expect(counter.size).toBe(100);
    expect(await counter.read(['new-499', 'new-400', 'new-399', 'live-0'])).toEqual([
      { failures: 1, resetSeconds: 10 },
      { failures: 1, resetSeconds: 10 },
      { failures: 0, resetSeconds: 0 },
      { failures: 0, resetSeconds: 0 },
    ]);
  });

  it('counts repeated failures in one window and starts a new window after it', async () => {
    let now = 0;
    const counter = new MemoryFailureCounter(100, () => now);
    await counter.add(['k'], 10);
    now = 4;
    await counter.add(['k'], 10);
    expect(await counter.read(['k'])).toEqual([{ failures: 2, resetSeconds: 6 }]);
    now = 10;
    expect(await counter.read(['k'])).toEqual([{ failures: 0, resetSeconds: 0 }]);
    await counter.add(['k'], 10);
    expect(await counter.read(['k'])).toEqual([{ failures: 1, resetSeconds: 10 }]);
  });
});

describe.skipIf(!process.env.TEST_REDIS_URL)('Redis failure counter (TEST_REDIS_URL)', () => {
  it('shares counts between connections and lets Redis expire them', async () => {
    const prefix = `loupe-test-${randomUUID().slice(0, 8)}`;
    const a = new Redis(process.env.TEST_REDIS_URL!);
    const b = new Redis(process.env.TEST_REDIS_URL!);
    try {
      await new RedisFailureCounter(a, prefix).add(['x', 'y'], 30);
      await new RedisFailureCounter(b, prefix).add(['x'], 30);
      const [x, y, z] = await new RedisFailureCounter(a, prefix).read(['x', 'y', 'z']);
      expect(x.failures).toBe(2);
      expect(y.failures).toBe(1);
      expect(z).toEqual({ failures: 0, resetSeconds: 0 });
      expect(x.resetSeconds).toBeGreaterThan(0);
      expect(x.resetSeconds).toBeLessThanOrEqual(30);
      expect(await a.ttl(`${prefix}:authfail:x`)).toBeGreaterThan(0);
    } finally {
      await a.quit();
      await b.quit();
    }
  });
});

if (process.env.TEST_REDIS_URL) {
  policySuite(
    'Redis',
    async () => {
      const redis = new Redis(process.env.TEST_REDIS_URL!);
      return { counter: new RedisFailureCounter(redis, `loupe-test-${randomUUID().slice(0, 8)}`), close: async () => void (await redis.quit()) };
    },
    3,
    // Redis expires keys on its own clock: wait past the 3 s window.
    () => new Promise((resolve) => setTimeout(resolve, 4_100)),
  );
}
