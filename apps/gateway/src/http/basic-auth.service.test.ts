import { AuthThrottle, hashPassword, MemoryFailureCounter } from '@loupe/auth';
import { AuthError } from '@loupe/envelope';
import type { AccountRow, UserRow } from '@loupe/storage';
import * as crypto from 'node:crypto';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { AuthThrottledError, BasicAuthService } from './basic-auth.service';

// Every scrypt run is counted, whichever code path makes it: the test is about work done, not about wall time.
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return { ...actual, scrypt: vi.fn(actual.scrypt) };
});
const scryptRuns = () => vi.mocked(crypto.scrypt).mock.calls.length;

const ACME: AccountRow = { id: 1, name: 'acme' };
const BETA: AccountRow = { id: 2, name: 'beta' };

/** Two accounts, each with one user, and a count of the lookups made. */
function accounts(users: UserRow[]) {
  const lookups = { find: 0, findUser: 0 };
  return {
    lookups,
    repo: {
      find: async (name: string) => {
        lookups.find += 1;
        return [ACME, BETA].find((a) => a.name === name) ?? null;
      },
      findUser: async (accountId: number, username: string) => {
        lookups.findUser += 1;
        return users.find((u) => u.account_id === accountId && u.username === username) ?? null;
      },
    },
  };
}

function request(user: string, password: string, address = '192.0.2.10', forwardedFor?: string) {
  const headers: Record<string, string> = { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` };
  if (forwardedFor) headers['x-forwarded-for'] = forwardedFor;
  return { headers, socket: { remoteAddress: address } } as never;
}

async function refusal(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error('the credentials were accepted');
    },
    (error: Error) => error,
  );
}

describe('Basic auth: every refusal costs the same', () => {
  let users: UserRow[];
  beforeAll(async () => {
    users = [
      { id: 1, account_id: ACME.id, username: 'alice', password_hash: await hashPassword('wonderland') },
      { id: 2, account_id: BETA.id, username: 'bob', password_hash: await hashPassword('builder') },
    ];
  });

  it('runs one scrypt and the same lookups for a wrong password, an unknown user, an unknown account and another account’s user', async () => {
    const cases: Array<[string, string, string, string]> = [
      ['wrong password', 'acme', 'alice', 'not-it'],
      ['unknown user', 'acme', 'mallory', 'not-it'],
      ['unknown account', 'nowhere', 'alice', 'not-it'],
      ['another account’s user', 'acme', 'bob', 'builder'],
    ];
    const work: Record<string, { scrypt: number; find: number; findUser: number }> = {};
    for (const [name, account, user, password] of cases) {
      const { repo, lookups } = accounts(users);
      const auth = new BasicAuthService(repo, new AuthThrottle(new MemoryFailureCounter(), { perAddress: 0, perSubject: 0, windowSeconds: 60 }), false);
      const before = scryptRuns();
      const error = await refusal(auth.authenticate(account, request(user, password)));
      expect(error, name).toBeInstanceOf(AuthError);
      expect(error.message, name).toBe('Invalid or missing credentials for this account.');
      work[name] = { scrypt: scryptRuns() - before, ...lookups };
    }
    for (const name of Object.keys(work)) expect(work[name], name).toEqual({ scrypt: 1, find: 1, findUser: 1 });
  });

  it('still lets the right password in, and checks a stored hash it cannot read with the same work', async () => {
    const { repo } = accounts([...users, { id: 3, account_id: ACME.id, username: 'broken', password_hash: 'plain-text' }]);
    const auth = new BasicAuthService(repo, new AuthThrottle(new MemoryFailureCounter(), { perAddress: 0, perSubject: 0, windowSeconds: 60 }), false);
    expect(await auth.authenticate('acme', request('alice', 'wonderland'))).toEqual(ACME);
    const before = scryptRuns();
    expect(await refusal(auth.authenticate('acme', request('broken', 'plain-text')))).toBeInstanceOf(AuthError);
    expect(scryptRuns() - before).toBe(1);
  });
});

describe('Basic auth: throttling of failed sign-ins', () => {
  let users: UserRow[];
  let clock: number;
  let counter: MemoryFailureCounter;
  beforeAll(async () => {
    users = [{ id: 1, account_id: ACME.id, username: 'alice', password_hash: await hashPassword('wonderland') }];
  });
  beforeEach(() => {
    clock = 1_000_000;
    counter = new MemoryFailureCounter(1000, () => clock);
  });
  const service = (limits: { perAddress: number; perSubject: number }, trustProxy = false) =>
    new BasicAuthService(accounts(users).repo, new AuthThrottle(counter, { ...limits, windowSeconds: 600 }), trustProxy);

  it('refuses an address after its failures with 429 and Retry-After, without running scrypt, until the window ends', async () => {
    const auth = service({ perAddress: 3, perSubject: 0 });
    for (let i = 0; i < 3; i++) expect(await refusal(auth.authenticate('acme', request('alice', `guess-${i}`, '198.51.100.7')))).not.toBeInstanceOf(AuthThrottledError);
    clock += 100;
    const before = scryptRuns();
    const throttled = await refusal(auth.authenticate('acme', request('alice', 'wonderland', '198.51.100.7')));
    expect(throttled).toBeInstanceOf(AuthThrottledError);
    expect((throttled as AuthThrottledError).retryAfterSeconds).toBe(500);
    expect(throttled.message).toBe('Too many failed sign-in attempts; try again in 500 s.');
    // Other users from that address too: the address is what is guessing.
    expect(await refusal(auth.authenticate('beta', request('bob', 'builder', '198.51.100.7')))).toBeInstanceOf(AuthThrottledError);
    expect(scryptRuns() - before).toBe(0);
    // The real user from elsewhere gets in meanwhile.
    expect(await auth.authenticate('acme', request('alice', 'wonderland', '203.0.113.5'))).toEqual(ACME);
    clock += 501;
    expect(await auth.authenticate('acme', request('alice', 'wonderland', '198.51.100.7'))).toEqual(ACME);
  });

  it('slows a user under attack from many addresses for the addresses that failed, never for a clean one', async () => {
    const auth = service({ perAddress: 100, perSubject: 5 });
    for (let i = 0; i < 5; i++) await refusal(auth.authenticate('acme', request('alice', 'guess', `10.0.0.${i}`)));
    expect(await refusal(auth.authenticate('acme', request('alice', 'another-guess', '10.0.0.1')))).toBeInstanceOf(AuthThrottledError);
    // Even the right password is refused from an address that failed: it cannot be told from one more guess.
    expect(await refusal(auth.authenticate('acme', request('alice', 'wonderland', '10.0.0.1')))).toBeInstanceOf(AuthThrottledError);
    expect(await auth.authenticate('acme', request('alice', 'wonderland', '10.0.9.9'))).toEqual(ACME);
    // A fresh address of the attacker gets its one guess, then joins the refused ones.
    expect(await refusal(auth.authenticate('acme', request('alice', 'guess', '10.0.0.50')))).not.toBeInstanceOf(AuthThrottledError);
    expect(await refusal(auth.authenticate('acme', request('alice', 'guess', '10.0.0.50')))).toBeInstanceOf(AuthThrottledError);
  });

  it('counts behind a trusted proxy the address the proxy saw, and ignores X-Forwarded-For otherwise', async () => {
    const proxied = service({ perAddress: 2, perSubject: 0 }, true);
    // The client put its own "address" first; the proxy appended the real one.
    for (const spoofed of ['1.1.1.1', '2.2.2.2']) await refusal(proxied.authenticate('acme', request('alice', 'guess', '127.0.0.1', `${spoofed}, 198.51.100.9`)));
    expect(await refusal(proxied.authenticate('acme', request('alice', 'guess', '127.0.0.1', '3.3.3.3, 198.51.100.9')))).toBeInstanceOf(AuthThrottledError);
    expect(await proxied.authenticate('acme', request('alice', 'wonderland', '127.0.0.1', '198.51.100.10'))).toEqual(ACME);

    const direct = service({ perAddress: 2, perSubject: 0 }, false);
    for (const claimed of ['4.4.4.4', '5.5.5.5']) await refusal(direct.authenticate('acme', request('alice', 'guess', '192.0.2.99', claimed)));
    expect(await refusal(direct.authenticate('acme', request('alice', 'guess', '192.0.2.99', '6.6.6.6')))).toBeInstanceOf(AuthThrottledError);
  });

  it('does not count a call without credentials', async () => {
    const auth = service({ perAddress: 1, perSubject: 0 });
    const anonymous = { headers: {}, socket: { remoteAddress: '192.0.2.1' } } as never;
    for (let i = 0; i < 3; i++) expect(await refusal(auth.authenticate('acme', anonymous))).not.toBeInstanceOf(AuthThrottledError);
    expect(await auth.authenticate('acme', request('alice', 'wonderland', '192.0.2.1'))).toEqual(ACME);
  });
});
