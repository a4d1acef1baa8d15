import { describe, expect, it } from 'vitest';
import { Metrics, serveMetrics } from './metrics';

describe('serveMetrics', () => {
  it('serves /metrics and /health/live on its own port, and nothing else', async () => {
    const server = await serveMetrics(new Metrics(), 0, '127.0.0.1');
    try {
      const base = `http://127.0.0.1:${server.port}`;
      const metrics = await fetch(`${base}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toContain('process_cpu_seconds_total');
      expect((await fetch(`${base}/health/live`)).status).toBe(200);
      expect((await fetch(`${base}/mobile/acme/rest/list/`)).status).toBe(404);
    } finally {
      await server.close();
    }
  });

  it('refuses a port another process holds with a message that says what to set', async () => {
    const first = await serveMetrics(new Metrics(), 0, '127.0.0.1');
    try {
      // Two Loupe processes on one machine (a gateway and a worker) both default to 9464.
      await expect(serveMetrics(new Metrics(), first.port, '127.0.0.1')).rejects.toThrow(
        `METRICS_PORT ${first.port} is already in use (another Loupe process on this machine?): give each process its own METRICS_PORT, or 0 for any free port.`,
      );
    } finally {
      await first.close();
    }
  });
});
