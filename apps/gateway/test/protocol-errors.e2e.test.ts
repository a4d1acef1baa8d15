import { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT, AUTH, PASSWORD, USER } from './harness';
import { freePort, killHard, startApp, waitFor } from './processes';

/**
 * What Nest raises itself, before any controller runs (a path no route serves, a path that cannot be percent-decoded),
 * is answered in the protocol of the path, never with Nest's default `{"statusCode":…}` JSON (issue 12). The gateway
 * runs as its own process, started the way production starts it (tsx): in-process tests load Nest as ES modules and
 * could not see the second copy of @nestjs/common that made an undecodable path an HTTP 500 there.
 */
describe('errors Nest raises itself are answered in the protocol of the path', () => {
  let child: ChildProcess | undefined;
  let dataDir: string;
  let base: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-protocol-errors-'));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const app = startApp('gateway', { PORT: String(port), DATA_DIR: dataDir, ACCOUNTS: `${ACCOUNT}:${USER}:${PASSWORD}`, DATABASE_URL: '', REDIS_URL: '', S3_ENDPOINT: '' });
    child = app.child;
    await waitFor('the gateway to listen', async () => {
      if (child!.exitCode !== null) throw new Error(`the gateway exited:\n${app.output()}`);
      return (await fetch(`${base}/health/live`).catch(() => null))?.status === 200;
    }, 90_000, 200);
  }, 120_000);

  afterAll(async () => {
    if (child) await killHard(child);
    await rm(dataDir, { recursive: true, force: true });
  });

  async function get(pathAndQuery: string): Promise<{ status: number; type: string; text: string }> {
    const res = await fetch(`${base}${pathAndQuery}`, { headers: { authorization: AUTH } });
    return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
  }

  it('a collection path that cannot be decoded is a 404 fail envelope, in JSON or XML as asked', async () => {
    const json = await get(`/mobile/${ACCOUNT}/rest/%E0%A4%A/`);
    expect(json.status).toBe(404);
    expect(JSON.parse(json.text)).toMatchObject({
      status: 'fail',
      error: [`The path "/mobile/${ACCOUNT}/rest/%E0%A4%A/" could not be decoded: a percent-encoding in it is not UTF-8 text.`],
      result: [],
    });
    const xml = await get(`/mobile/${ACCOUNT}/rest/%E0%A4%A/?format=xml`);
    expect(xml.status).toBe(404);
    expect(xml.type).toMatch(/xml/);
    expect(xml.text).toContain('<status>fail</status><error><item>The path &quot;/mobile/');
  });

  it('a public API path that cannot be decoded is a 400 in the API envelope, at /rest and /api/rest', async () => {
    for (const prefix of ['/rest', '/api/rest']) {
      const answer = await get(`${prefix}/%E0%A4%A/`);
      expect(answer.status, prefix).toBe(400);
      expect(JSON.parse(answer.text), prefix).toMatchObject({ code: 400, messages: ['BAD_REQUEST', expect.stringContaining('could not be decoded')], results: [] });
    }
  });

  it('a path no route serves is a 404 envelope of its protocol, naming the path', async () => {
    const collection = await get(`/mobile/${ACCOUNT}/rest/a/b/c`);
    expect(collection.status).toBe(404);
    expect(JSON.parse(collection.text)).toMatchObject({ status: 'fail', error: [expect.stringContaining(`"/mobile/${ACCOUNT}/rest/a/b/c"`)] });
    const api = await get('/api/rest/a/b/c');
    expect(api.status).toBe(404);
    expect(JSON.parse(api.text)).toMatchObject({ code: 404, messages: ['NOT_FOUND', expect.stringContaining('"/api/rest/a/b/c"')] });
    const elsewhere = await get(`/nothing-here?format=xml`);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.text).toContain('<status>fail</status>');
    // A path quoted back is cut short, like every client value in a message.
    const long = await get(`/${'x'.repeat(5_000)}`);
    expect(JSON.parse(long.text).error[0].length).toBeLessThan(400);
  });

  it('leaves the answers of the other routes as they are', async () => {
    const live = await get('/health/live');
    expect(live.status).toBe(200);
    expect(JSON.parse(live.text)).toMatchObject({ status: 'ok' });
  });
});
