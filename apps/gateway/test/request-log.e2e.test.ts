import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ACCOUNT, AUTH, PASSWORD, USER } from './harness';
import { freePort, killHard, startApp, waitFor } from './processes';

/** A gateway process (embedded) with LOG_REQUESTS set as given: what it writes for one call carrying a request id. */
async function linesOfOneCall(logRequests: 'true' | 'false', requestId: string): Promise<string[]> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-request-log-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const app = startApp('gateway', {
    PORT: String(port), DATA_DIR: dataDir, ACCOUNTS: `${ACCOUNT}:${USER}:${PASSWORD}`, DATABASE_URL: '', REDIS_URL: '', S3_ENDPOINT: '',
    LOG_REQUESTS: logRequests, LOG_LEVEL: 'info',
  });
  try {
    await waitFor('the gateway to listen', async () => {
      if (app.child.exitCode !== null) throw new Error(`the gateway exited:\n${app.output()}`);
      return (await fetch(`${base}/health/live`).catch(() => null))?.status === 200;
    }, 90_000, 200);
    const res = await fetch(`${base}/mobile/${ACCOUNT}/rest/count/`, { headers: { authorization: AUTH, 'x-request-id': requestId } });
    expect(res.status).toBe(200);
    // The line is written when the answer ends; give the stream a moment.
    await new Promise((resolve) => setTimeout(resolve, 500));
    return app.output().split('\n').filter((line) => line.includes(requestId));
  } finally {
    await killHard(app.child);
    await rm(dataDir, { recursive: true, force: true });
  }
}

describe('LOG_REQUESTS', () => {
  it('writes one JSON line per collection call when true, and none when false', async () => {
    const logged = await linesOfOneCall('true', 'trace-logged-1');
    expect(logged).toHaveLength(1);
    expect(JSON.parse(logged[0])).toMatchObject({ msg: 'request', requestId: 'trace-logged-1', service: 'mobile', operation: 'count', status: 200, outcome: 'ok' });
    expect(await linesOfOneCall('false', 'trace-quiet-1')).toEqual([]);
  }, 240_000);
});
