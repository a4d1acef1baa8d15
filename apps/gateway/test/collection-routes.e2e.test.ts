import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT, AUTH, startTestSystem, TestSystem } from './harness';

/**
 * Each collection service is a Nest module with one route per operation (apps/gateway/src/collection). Express matches
 * routes without regard to case and against the path as sent, while the gateway has always read the service and
 * operation names decoded and exactly; these are the paths where the two differ.
 */
describe('collection routes: which path reaches which operation', () => {
  let sys: TestSystem;

  beforeAll(async () => {
    sys = await startTestSystem('embedded');
  }, 120_000);
  afterAll(async () => {
    await sys?.destroy();
  });

  async function send(path: string, options: { method?: string; auth?: boolean } = {}): Promise<{ status: number; type: string; body: any }> {
    const res = await fetch(`${sys.url}${path}`, { method: options.method ?? 'GET', headers: options.auth === false ? {} : { authorization: AUTH } });
    const text = await res.text();
    const type = res.headers.get('content-type') ?? '';
    return { status: res.status, type, body: type.includes('json') && text ? JSON.parse(text) : text };
  }

  it('answers a path naming no service 404 before any credentials are asked for, in the format asked', async () => {
    const json = await send(`/foo/${ACCOUNT}/rest/search/`, { auth: false });
    expect(json.status).toBe(404);
    expect(json.body).toMatchObject({ method: 'search', status: 'fail', error: ['There is no service named "foo".'], result: [] });
    const xml = await send(`/foo/nobody/rest/search?format=xml`, { auth: false });
    expect(xml.status).toBe(404);
    expect(xml.type).toMatch(/xml/);
    expect(xml.body).toContain('<method>search</method><status>fail</status><error><item>There is no service named &quot;foo&quot;.</item>');
  });

  it('answers an unknown operation 404 only after the credentials, before reading the body', async () => {
    expect((await send(`/match/${ACCOUNT}/rest/get_info/`, { auth: false })).status).toBe(401);
    const known = await send(`/match/${ACCOUNT}/rest/get_info/`);
    expect(known.status).toBe(404);
    expect(known.body.error).toEqual(['The match service has no operation "get_info".']);
  });

  it('keeps service and operation names case-sensitive, though Express matches the routes without regard to case', async () => {
    const service = await send(`/MOBILE/${ACCOUNT}/rest/ping/`, { auth: false });
    expect(service.status).toBe(404);
    expect(service.body.error).toEqual(['There is no service named "MOBILE".']);
    expect((await send(`/mobile/${ACCOUNT}/rest/PING/`, { auth: false })).status).toBe(401);
    const operation = await send(`/mobile/${ACCOUNT}/rest/PING/`);
    expect(operation.status).toBe(404);
    expect(operation.body).toMatchObject({ method: 'PING', error: ['The mobile service has no operation "PING".'] });
  });

  it('reads percent-encoded letters in the names as the letters, and other escapes as the characters they encode', async () => {
    expect((await send(`/mob%69le/${ACCOUNT}/rest/c%6Funt/`)).body).toMatchObject({ method: 'count', status: 'ok', result: [0] });
    expect((await send(`/m%4Fbile/${ACCOUNT}/rest/ping/`)).body.error).toEqual(['There is no service named "mObile".']);
    const slash = await send(`/mobile/${ACCOUNT}/rest/pi%2Fng/`);
    expect(slash.status).toBe(404);
    expect(slash.body.error).toEqual(['The mobile service has no operation "pi/ng".']);
  });

  it('serves every operation under any method, with or without the trailing slash', async () => {
    for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
      for (const path of [`/color/${ACCOUNT}/rest/count/`, `/color/${ACCOUNT}/rest/count`]) {
        const res = await send(path, { method });
        expect(res.status, `${method} ${path}`).toBe(200);
        expect(res.body, `${method} ${path}`).toMatchObject({ method: 'count', status: 'ok' });
      }
    }
    expect((await send(`/wine/${ACCOUNT}/rest/list`, { method: 'HEAD' })).status).toBe(200);
    expect((await send(`/mobile/${ACCOUNT}/rest/ping//`)).status).toBe(404);
  });
});
