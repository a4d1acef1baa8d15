import { createWorkerServices } from '@loupe/jobs';
import { startBullWorkers } from '@loupe/queue';
import { createLogger, instrumentProcessors, loadConfig, Metrics, openInfrastructure } from '@loupe/runtime';
import { createServer } from 'node:http';

/**
 * A worker process: runs the processors of the job kinds named in WORKER_QUEUES (default: all) against the shared
 * Redis, Postgres and blob store. Start as many as the load needs; each takes WORKER_CONCURRENCY jobs at a time.
 * It serves /metrics and /health/live on METRICS_PORT (default 9464) for Prometheus and Kubernetes.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  if (!config.redisUrl) {
    throw new Error('REDIS_URL is not set: a separate worker needs Redis. Without it, `npm start` runs the workers in the gateway process.');
  }
  const log = createLogger('worker');
  const metrics = new Metrics();
  const infra = await openInfrastructure(config);
  const services = createWorkerServices(infra);
  const processors = instrumentProcessors(services.processors, metrics, log);
  const known = Object.keys(processors);
  const kinds = (process.env.WORKER_QUEUES ?? '').split(',').map((k) => k.trim()).filter(Boolean);
  const unknown = kinds.filter((k) => !known.includes(k));
  if (unknown.length > 0) {
    await infra.close();
    throw new Error(`WORKER_QUEUES: unknown job kinds ${unknown.join(', ')}; known: ${known.join(', ')}.`);
  }
  const concurrency = Number(process.env.WORKER_CONCURRENCY || 1);
  const workers = await startBullWorkers({
    redisUrl: config.redisUrl,
    prefix: config.redisPrefix,
    processors,
    kinds: kinds.length > 0 ? kinds : known,
    concurrency,
    stalledIntervalMs: process.env.WORKER_STALLED_INTERVAL_MS ? Number(process.env.WORKER_STALLED_INTERVAL_MS) : undefined,
  });
  const metricsPort = Number(process.env.METRICS_PORT ?? 9464);
  const server = createServer(async (req, res) => {
    if (req.url === '/metrics') {
      res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(await metrics.registry.metrics());
    } else if (req.url === '/health/live') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'ok' }));
    } else {
      res.writeHead(404).end();
    }
  });
  server.listen(metricsPort);
  console.log(`Loupe worker ready for ${kinds.length > 0 ? kinds.join(', ') : 'all job kinds'} (concurrency ${concurrency}, metrics on :${metricsPort})`);
  const stop = async (signal: string) => {
    console.log(`${signal}: finishing current jobs and stopping`);
    server.close();
    await workers.close();
    await services.close();
    await infra.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
