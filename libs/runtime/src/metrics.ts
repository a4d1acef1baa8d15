import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface MetricsCollectors {
  queueCounts?: () => Promise<Record<string, { waiting: number; active: number }>>;
  indexSizes?: () => Promise<Array<{ service: string; images: number }>>;
}

/**
 * Prometheus metrics of one process. Request metrics are labelled by service and operation only (never by account or
 * path, which would explode the series count), and callers pass only names from their own tables (`unknown`
 * otherwise); queue and index gauges are computed when Prometheus scrapes.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly requests: Counter<'service' | 'operation' | 'status'>;
  readonly latency: Histogram<'service' | 'operation'>;
  /** Job durations, in whichever process runs the processors (the gateway in embedded mode, workers otherwise). */
  readonly jobs: Histogram<'kind' | 'outcome'>;
  /** Time per step of the jobs that report their steps (searches: the vote, verification, each second chance). */
  readonly jobSteps: Histogram<'kind' | 'step'>;

  constructor(collectors: MetricsCollectors = {}) {
    collectDefaultMetrics({ register: this.registry, prefix: 'loupe_' });
    this.requests = new Counter({
      name: 'loupe_requests_total',
      help: 'Collection-service and public API (service "api") calls by service, operation and envelope status (or HTTP status when not 200)',
      labelNames: ['service', 'operation', 'status'],
      registers: [this.registry],
    });
    this.latency = new Histogram({
      name: 'loupe_request_duration_seconds',
      help: 'Collection-service and public API call latency, from request to rendered envelope',
      labelNames: ['service', 'operation'],
      // Searches take tens to hundreds of milliseconds, adds of ten large images several seconds.
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [this.registry],
    });
    this.jobs = new Histogram({
      name: 'loupe_job_duration_seconds',
      help: 'Job processing time per job kind and outcome (ok or error)',
      labelNames: ['kind', 'outcome'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [this.registry],
    });
    this.jobSteps = new Histogram({
      name: 'loupe_job_step_duration_seconds',
      help: 'Time per step of the jobs that report their steps (a search: query, vote, verification, each second chance), per job kind and step',
      labelNames: ['kind', 'step'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [this.registry],
    });
    const queueCounts = collectors.queueCounts;
    if (queueCounts) {
      const gauge = new Gauge({
        name: 'loupe_queue_jobs',
        help: 'Jobs per queue line: waiting for a slot or a worker, and active',
        labelNames: ['queue', 'state'],
        registers: [this.registry],
        async collect() {
          this.reset();
          for (const [queue, counts] of Object.entries(await queueCounts())) {
            this.set({ queue, state: 'waiting' }, counts.waiting);
            this.set({ queue, state: 'active' }, counts.active);
          }
        },
      });
      void gauge;
    }
    const indexSizes = collectors.indexSizes;
    if (indexSizes) {
      const gauge = new Gauge({
        name: 'loupe_index_images',
        help: 'Images in the collection index, per service',
        labelNames: ['service'],
        registers: [this.registry],
        async collect() {
          this.reset();
          for (const row of await indexSizes()) this.set({ service: row.service }, row.images);
        },
      });
      void gauge;
    }
  }

  observe(service: string, operation: string, status: string, seconds: number): void {
    this.requests.inc({ service, operation, status });
    this.latency.observe({ service, operation }, seconds);
  }
}


export interface MetricsServer {
  /** The port listened on (the one asked for, or the one the system chose for 0). */
  port: number;
  close(): Promise<void>;
}

/**
 * Serves `/metrics` and `/health/live` on a port of their own, apart from the public API: metrics name operations,
 * queues and index sizes, which are for the operator's Prometheus, not for every client. Resolves once listening and
 * rejects when the port cannot be had, so a clash is a start-up error rather than a silent gap in monitoring.
 */
export function serveMetrics(metrics: Metrics, port: number, host?: string): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
    } else if (path === '/metrics') {
      metrics.registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
        (error: unknown) => res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`Metrics could not be collected: ${error instanceof Error ? error.message : String(error)}\n`),
      );
    } else if (path === '/health/live') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'ok' }));
    } else {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Only /metrics and /health/live are served here.\n');
    }
  });
  // Prometheus scrapes every few seconds over keep-alive; a client that opens a connection and sends nothing is cut off.
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  return new Promise((resolve, reject) => {
    const refuse = (error: NodeJS.ErrnoException) =>
      reject(
        new Error(
          error.code === 'EADDRINUSE'
            ? `METRICS_PORT ${port} is already in use (another Loupe process on this machine?): give each process its own METRICS_PORT, or 0 for any free port.`
            : `METRICS_PORT ${port} could not be listened on: ${error.message}`,
        ),
      );
    server.once('error', refuse);
    server.listen(port, host, () => {
      server.off('error', refuse);
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
