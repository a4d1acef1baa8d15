import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH, formWith, MODES, startTestSystem, TestSystem } from './harness';
import { sceneJpeg } from './images';

/** The label sets of loupe_requests_total in a scrape, e.g. `service="mobile",operation="count",status="ok"`. */
function requestSeries(text: string): Set<string> {
  return new Set([...text.matchAll(/^loupe_requests_total\{([^}]*)\} /gm)].map((m) => m[1]));
}

/** Runs `count` calls, `width` at a time, so a few hundred junk URLs take seconds, not minutes. */
async function inBatches(count: number, width: number, one: (i: number) => Promise<void>): Promise<void> {
  for (let start = 0; start < count; start += width) {
    await Promise.all(Array.from({ length: Math.min(width, count - start) }, (_, k) => one(start + k)));
  }
}

for (const mode of MODES) {
  describe.skipIf(!mode.enabled)(`metrics from hostile URLs (${mode.name})`, () => {
    let sys: TestSystem;
    beforeAll(async () => {
      sys = await startTestSystem(mode.name, { API_KEYS: 'm-acct:pub-m:priv-m:10' });
    });
    afterAll(async () => {
      await sys?.destroy();
    });

    const scrape = async () => {
      const res = await fetch(`${sys.gateway.metricsUrl}/metrics`);
      expect(res.status).toBe(200);
      return res.text();
    };

    it('serves /metrics on METRICS_PORT only, not on the public port', async () => {
      expect(new URL(sys.gateway.metricsUrl).port).not.toBe(new URL(sys.url).port);
      expect((await fetch(`${sys.url}/metrics`)).status).toBe(404);
      const res = await fetch(`${sys.gateway.metricsUrl}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/plain');
      expect(await res.text()).toContain('# TYPE loupe_requests_total counter');
      expect((await fetch(`${sys.gateway.metricsUrl}/health/live`)).status).toBe(200);
      expect((await fetch(`${sys.gateway.metricsUrl}/mobile/acme/rest/count/`)).status).toBe(404);
    });

    it('adds no series for 500 junk operation, service and API URLs, with and without credentials', async () => {
      const junkCalls = async (i: number) => {
        const junk = `op-${i}-${randomBytes(4).toString('hex')}`;
        const calls = [
          [`${sys.url}/mobile/acme/rest/${junk}/`, AUTH, 404],
          [`${sys.url}/match/acme/rest/${junk}/`, undefined, 401],
          [`${sys.url}/${junk}/acme/rest/count/`, AUTH, 404],
          [`${sys.url}/color/nobody-${i}/rest/${junk}/`, undefined, 401],
          [`${sys.url}/api/rest/${junk}/`, undefined, 404],
        ] as const;
        for (const [url, authorization, status] of calls) {
          const res = await fetch(url, { headers: authorization ? { authorization } : {} });
          await res.arrayBuffer();
          expect(res.status, url).toBe(status);
        }
      };
      // One round first, so that the series a junk call may legitimately count in (`unknown`) exist before.
      await junkCalls(-1);
      const before = requestSeries(await scrape());

      await inBatches(500, 25, junkCalls);

      const after = await scrape();
      expect([...requestSeries(after)].filter((labels) => !before.has(labels))).toEqual([]);
      expect(after).not.toMatch(/op-\d+-/);
      expect(after).toMatch(/loupe_requests_total\{service="mobile",operation="unknown",status="404"\} 501\n/);
      expect(after).toMatch(/loupe_requests_total\{service="match",operation="unknown",status="401"\} 501\n/);
      expect(after).toMatch(/loupe_requests_total\{service="unknown",operation="unknown",status="404"\} 501\n/);
      expect(after).toMatch(/loupe_requests_total\{service="color",operation="unknown",status="401"\} 501\n/);
      expect(after).toMatch(/loupe_requests_total\{service="api",operation="unknown",status="404"\} 501\n/);
    });

    it('counts a call whose client went away before its answer', async () => {
      const series = /loupe_requests_total\{service="mobile",operation="search",status="([a-z0-9]+)"\} (\d+)/g;
      const searches = (text: string) => [...text.matchAll(series)].reduce((sum, m) => sum + Number(m[2]), 0);
      const before = searches(await scrape());
      const form = formWith([{ field: 'image', data: await sceneJpeg(7, 640, 480), filename: 'gone.jpg' }]);
      const controller = new AbortController();
      const sent = fetch(`${sys.url}/mobile/acme/rest/search/`, { method: 'POST', headers: { authorization: AUTH }, body: form, signal: controller.signal });
      setTimeout(() => controller.abort(), 150);
      await sent.catch(() => undefined);
      const deadline = Date.now() + 60_000;
      while (searches(await scrape()) === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
      expect(searches(await scrape())).toBe(before + 1);
    }, 90_000);

    it('labels public API calls by their operation', async () => {
      const res = await fetch(`${sys.url}/api/rest/image_count/?api_key=pub-m&date=1&nonce=abcdefgh12&api_sig=00`);
      expect(res.status).toBe(401);
      expect(await scrape()).toMatch(/loupe_requests_total\{service="api",operation="image_count",status="401"\} 1/);
    });
  });
}
