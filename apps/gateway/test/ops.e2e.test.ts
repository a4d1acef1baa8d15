import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, MODES, startTestSystem, TestSystem } from './harness';

/** A @nestjs/terminus health answer: every checked dependency, under `info` when up and under `error` when down. */
interface HealthBody {
  status: 'ok' | 'error' | 'shutting_down';
  info: Record<string, { status: 'up' | 'down' }>;
  error: Record<string, { status: 'up' | 'down' }>;
}

const healthBody = async (res: Response) => (await res.json()) as HealthBody;

for (const mode of MODES) {
  describe.skipIf(!mode.enabled)(`operations endpoints (${mode.name})`, () => {
    let sys: TestSystem;
    beforeAll(async () => {
      sys = await startTestSystem(mode.name, { ADMIN_PASSWORD: 'board-secret' });
    });
    afterAll(async () => {
      await sys?.destroy();
    });

    it('answers liveness, and readiness with every dependency checked', async () => {
      const live = await fetch(`${sys.url}/health/live`);
      expect(live.status).toBe(200);
      expect((await healthBody(live)).status).toBe('ok');
      const ready = await fetch(`${sys.url}/health/ready`);
      expect(ready.status).toBe(200);
      const body = await healthBody(ready);
      const expected = mode.name === 'real' ? ['blobs', 'database', 'redis'] : ['blobs', 'database'];
      expect(Object.keys(body.info).sort()).toEqual(expected);
      for (const name of expected) expect(body.info[name].status).toBe('up');
    });

    it('reports not ready, naming the dependency, when one is down', async () => {
      const other = await startTestSystem(mode.name);
      try {
        await other.gateway.infra.db.close();
        const ready = await fetch(`${other.url}/health/ready`);
        expect(ready.status).toBe(503);
        expect((await healthBody(ready)).error.database.status).toBe('down');
      } finally {
        await other.destroy();
      }
    });

    it('echoes a sane X-Request-Id and makes one up otherwise', async () => {
      const res = await fetch(`${sys.url}/mobile/acme/rest/ping/`, { headers: { authorization: 'Basic ' + Buffer.from('alice:wonderland').toString('base64'), 'x-request-id': 'trace-42' } });
      expect(res.headers.get('x-request-id')).toBe('trace-42');
      const forged = await fetch(`${sys.url}/mobile/acme/rest/ping/`, { headers: { 'x-request-id': 'bad id <script>' } });
      expect(forged.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('exposes Prometheus metrics for requests, queues and the index', async () => {
      await call(sys, 'mobile', 'count');
      await call(sys, 'mobile', 'no_such_operation');
      const text = await (await fetch(`${sys.gateway.metricsUrl}/metrics`)).text();
      expect(text).toMatch(/loupe_requests_total\{service="mobile",operation="count",status="ok"\} \d+/);
      expect(text).toMatch(/loupe_requests_total\{service="mobile",operation="unknown",status="404"\} 1/);
      expect(text).toContain('loupe_request_duration_seconds_bucket{le="0.005",service="mobile",operation="count"}');
      expect(text).toContain('# TYPE loupe_queue_jobs gauge');
      expect(text).toContain('# TYPE loupe_index_images gauge');
    });

    it.skipIf(mode.name !== 'real')('serves the queue board at /admin/queues to the admin only', async () => {
      expect((await fetch(`${sys.url}/admin/queues`)).status).toBe(401);
      const user = 'Basic ' + Buffer.from('alice:wonderland').toString('base64');
      expect((await fetch(`${sys.url}/admin/queues`, { headers: { authorization: user } })).status).toBe(401);
      const admin = 'Basic ' + Buffer.from('admin:board-secret').toString('base64');
      const page = await fetch(`${sys.url}/admin/queues`, { headers: { authorization: admin } });
      expect(page.status).toBe(200);
      const api = await fetch(`${sys.url}/admin/queues/api/queues`, { headers: { authorization: admin } });
      const names = ((await api.json()) as { queues: Array<{ name: string; description?: string }> }).queues.map((q) => q.name);
      expect(names).toEqual(expect.arrayContaining(['ingest', 'search', 'compare', 'delete']));
    });
  });
}
