import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedQuery } from './api-signing';
import { apiBody, envelopeBody } from './bodies';
import { ACCOUNT, MODES, PASSWORD, startTestSystem, TestSystem, USER } from './harness';
import { waitFor } from './processes';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** Long enough that a loaded machine makes the few failures of a test well inside one window, short enough to wait out. */
const WINDOW_SECONDS = 8;

for (const mode of MODES) {
  describe.skipIf(!mode.enabled)(`throttling of failed sign-ins (${mode.name})`, () => {
    let sys: TestSystem;
    beforeAll(async () => {
      sys = await startTestSystem(mode.name, {
        // The harness's clients all come from 127.0.0.1: behind a "proxy", X-Forwarded-For stands for their addresses.
        TRUST_PROXY: 'true',
        AUTH_FAILURES_PER_ADDRESS: '3',
        AUTH_FAILURES_PER_USER: '4',
        AUTH_FAILURE_WINDOW_SECONDS: String(WINDOW_SECONDS),
        API_KEYS: 'throttle-acct:pub-t:priv-t:10',
        API_KEY_HEADER_OVER_HTTP: 'true',
      });
    });
    afterAll(async () => {
      await sys?.destroy();
    });

    const count = (from: string, authorization: string, account = ACCOUNT) =>
      fetch(`${sys.url}/mobile/${account}/rest/count/`, { headers: { authorization, 'x-forwarded-for': from } });

    it('answers 429 with Retry-After and an envelope after 3 failures from one address, lets the user in from another, and forgets after the window', async () => {
      for (let i = 0; i < 3; i++) expect((await count('198.51.100.20', basic(USER, `guess-${i}`))).status).toBe(401);
      const refused = await count('198.51.100.20', basic(USER, PASSWORD));
      expect(refused.status).toBe(429);
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);
      const body = await envelopeBody(refused);
      expect(body.status).toBe('fail');
      expect(body.error).toEqual([`Too many failed sign-in attempts; try again in ${retryAfter} s.`]);
      // Any account, any user, from that address.
      expect((await count('198.51.100.20', basic('bob', 'builder'), 'beta')).status).toBe(429);

      const owner = await count('203.0.113.20', basic(USER, PASSWORD));
      expect(owner.status).toBe(200);
      expect((await envelopeBody(owner)).status).toBe('ok');

      await waitFor('the window to end', async () => (await count('198.51.100.20', basic(USER, PASSWORD))).status === 200, (WINDOW_SECONDS + 20) * 1000, 500);
    });

    it('refuses a user under attack from many addresses to the addresses that failed, never to a clean one', async () => {
      for (let i = 1; i <= 4; i++) expect((await count(`192.0.2.${i}`, basic('bob', 'wrong'), 'beta')).status).toBe(401);
      expect((await count('192.0.2.1', basic('bob', 'builder'), 'beta')).status).toBe(429);
      expect((await count('192.0.2.99', basic('bob', 'builder'), 'beta')).status).toBe(200);
      // Other users from those addresses are not concerned.
      expect((await count('192.0.2.1', basic(USER, PASSWORD))).status).toBe(200);
    });

    it('throttles unknown api_keys and bad signatures per address on the public API, and the right key still works elsewhere', async () => {
      const base = `${sys.url}/api/rest/`;
      const call = (from: string, key: { publicKey: string; privateKey: string }) =>
        fetch(`${base}image_count/?${signedQuery('GET', 'image_count', {}, key, base)}`, { headers: { 'x-forwarded-for': from } });
      const unknown = await call('198.51.100.40', { publicKey: 'no-such-key', privateKey: 'x' });
      expect(unknown.status).toBe(401);
      expect((await apiBody(unknown)).messages[0]).toBe('INVALID_API_KEY');
      for (let i = 0; i < 2; i++) {
        const forged = await call('198.51.100.40', { publicKey: 'pub-t', privateKey: `guess-${i}` });
        expect((await apiBody(forged)).messages[0]).toBe('INVALID_SIGNATURE');
      }
      const refused = await call('198.51.100.40', { publicKey: 'pub-t', privateKey: 'priv-t' });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      const body = await apiBody(refused);
      expect(body.code).toBe(429);
      expect(body.messages[0]).toBe('TOO_MANY_FAILED_ATTEMPTS');

      const owner = await call('203.0.113.40', { publicKey: 'pub-t', privateKey: 'priv-t' });
      expect(owner.status).toBe(200);
    });

    it('throttles guessed private keys in the x-api-key header per address', async () => {
      const call = (from: string, privateKey: string) =>
        fetch(`${sys.url}/api/rest/image_count/`, { headers: { 'x-forwarded-for': from, 'x-api-key': privateKey } });
      for (let i = 0; i < 3; i++) {
        const guess = await call('198.51.100.60', `guess-${i}`);
        expect(guess.status).toBe(401);
        expect((await apiBody(guess)).messages[0]).toBe('INVALID_API_KEY');
      }
      const refused = await call('198.51.100.60', 'priv-t');
      expect(refused.status).toBe(429);
      expect((await apiBody(refused)).messages[0]).toBe('TOO_MANY_FAILED_ATTEMPTS');
      expect((await call('203.0.113.60', 'priv-t')).status).toBe(200);
    });
  });
}
