import 'reflect-metadata';
import { parseAccountsSpec } from '@loupe/auth';
import { ALL_JOB_KINDS } from '@loupe/jobs';
import { pingRedis } from '@loupe/queue';
import {
  AppConfig, createLogger, ensureAccountUser, Infrastructure, Metrics, MetricsServer, openInfrastructure, openQueues, QueueRuntime, serveMetrics, warnTo,
} from '@loupe/runtime';
import { ColorRepository } from '@loupe/storage';
import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { AppModule } from './app.module';
import { createPublicApi, PublicApi } from './api/create-api';
import { ADMIN_QUEUES_PATH, adminQueuesRouter } from './ops/admin-queues';
import type { ReadinessProbe } from './ops/readiness';
import { SERVICE_CONTROLLERS } from './collection/collection.module';
import { CollectionImages } from './console';
import { createAuthThrottle } from './http/auth-throttle';
import { BasicAuthService } from './http/basic-auth.service';
import { servedOperations } from './http/collection-routes';
import { applyServerLimits } from './http/server-limits';
import { UrlDownloader } from './inputs/url-fetcher';

export interface Gateway {
  app: INestApplication;
  infra: Infrastructure;
  queues: QueueRuntime;
  /** Base URL once listening, e.g. http://127.0.0.1:8080 */
  url: string;
  /** Base URL of /metrics and /health/live on METRICS_PORT, kept off the public port. */
  metricsUrl: string;
  close(): Promise<void>;
}

/** What /health/ready checks: every outside thing a request may need. */
function readinessProbes(config: AppConfig, infra: Infrastructure): ReadinessProbe[] {
  const probes: ReadinessProbe[] = [
    { name: 'database', check: async () => void (await infra.db.query('SELECT 1')) },
    { name: 'blobs', check: () => infra.blobs.ping() },
  ];
  if (config.redisUrl) probes.push({ name: 'redis', check: () => pingRedis(config.redisUrl!) });
  return probes;
}

/**
 * A newcomer's `npm start` should be usable with curl at once: in embedded mode, with no ACCOUNTS and an empty
 * database, a `demo` account (user demo, password demo) is created and announced. Never with a real database,
 * where a guessable default account would be a hole.
 */
async function seedDemoAccount(config: AppConfig, infra: Infrastructure): Promise<void> {
  if (config.accounts || config.databaseUrl || (await infra.accounts.list()).length > 0) return;
  await ensureAccountUser(infra.accounts, { account: 'demo', username: 'demo', password: 'demo' });
  console.log('No accounts were configured: created account "demo" (user demo, password demo) for trying Loupe locally.');
}

/**
 * LOG_REQUESTS=false: the collection calls' logger without the info line each call writes; its warnings and errors
 * (faults, outages) are still written, and LOG_LEVEL still applies when it is stricter.
 */
function withoutRequestLines(log: Logger): Logger {
  return log.levelVal >= log.levels.values.warn ? log : log.child({}, { level: 'warn' });
}

/** Builds the whole gateway (adapters, services, HTTP) from a configuration and starts listening. */
export async function startGateway(config: AppConfig, options: { host?: string } = {}): Promise<Gateway> {
  if (config.metricsPort !== 0 && config.metricsPort === config.port) {
    throw new Error(`METRICS_PORT: ${config.metricsPort} is also PORT; metrics are served apart from the public port, so give them another.`);
  }
  const log = createLogger('gateway', config.logLevel);
  const infra = await openInfrastructure(config);
  let closeThrottle: (() => Promise<void>) | undefined;
  let metricsServer: MetricsServer | undefined;
  let queues: QueueRuntime | undefined;
  let closeAdmin: (() => Promise<void>) | undefined;
  let publicApi: PublicApi | undefined;
  try {
    for (const seed of parseAccountsSpec(config.accounts)) await ensureAccountUser(infra.accounts, seed);
    await seedDemoAccount(config, infra);
    const metrics = new Metrics({
      queueCounts: () => queues!.queue.stats(),
      indexSizes: () => infra.images.countsByService(),
    });
    queues = await openQueues(config, infra, { metrics, log });
    const authThrottle = createAuthThrottle(config, warnTo(log));
    closeThrottle = authThrottle.close;
    const auth = new BasicAuthService(infra.accounts, authThrottle.throttle, config.trustProxy);
    publicApi = await createPublicApi(config, infra, queues.queue, (message, error) => log.error({ err: error }, message), {
      throttle: authThrottle.throttle,
    });
    // The adapter is made here rather than left to NestFactory, which loads @nestjs/platform-express with import():
    // under tsx (how the gateway runs) that loads a second copy of @nestjs/common beside the one this code and
    // @nestjs/core require, and an exception the adapter makes (BadRequestException for an undecodable path) then
    // fails every `instanceof HttpException`: Nest answered it 500 and exception filters could not tell what it was.
    const collectionWiring = {
      auth,
      blobs: infra.blobs,
      queue: queues.queue,
      images: infra.images,
      colors: new ColorRepository(infra.db),
      downloads: new UrlDownloader({ ...config.download, allowPrivate: config.allowPrivateUrls }),
      limits: { maxBodyBytes: config.maxBodyBytes, maxFileBytes: config.maxFileBytes },
      log: config.logRequests ? log : withoutRequestLines(log),
      metrics,
    };
    const app = await NestFactory.create(AppModule.with(collectionWiring, {
      probes: readinessProbes(config, infra),
      api: publicApi.wiring,
      operations: servedOperations(SERVICE_CONTROLLERS),
      images: new CollectionImages(auth, infra.images, infra.blobs),
    }), new ExpressAdapter(), {
      bodyParser: false,
      logger: ['error', 'warn'],
    });
    app.enableShutdownHooks();
    if (config.redisUrl && config.adminPassword) {
      const admin = adminQueuesRouter({ redisUrl: config.redisUrl, prefix: config.redisPrefix, kinds: ALL_JOB_KINDS, user: config.adminUser, password: config.adminPassword });
      app.use(ADMIN_QUEUES_PATH, admin.guard, admin.router);
      closeAdmin = admin.close;
    }
    metricsServer = await serveMetrics(metrics, config.metricsPort, options.host ?? '0.0.0.0');
    applyServerLimits(app.getHttpServer(), config.http);
    await app.listen(config.port, options.host ?? '0.0.0.0');
    const address = app.getHttpServer().address() as AddressInfo;
    const openQueuesRuntime = queues;
    const openPublicApi = publicApi;
    const openMetricsServer = metricsServer;
    const openThrottle = authThrottle;
    return {
      app,
      infra,
      queues: openQueuesRuntime,
      url: `http://127.0.0.1:${address.port}`,
      metricsUrl: `http://127.0.0.1:${openMetricsServer.port}`,
      close: async () => {
        await app.close();
        await openMetricsServer.close();
        await openThrottle.close();
        await closeAdmin?.();
        await openPublicApi.close();
        await openQueuesRuntime.close();
        await infra.close();
      },
    };
  } catch (error) {
    await metricsServer?.close();
    await closeThrottle?.();
    await closeAdmin?.();
    await publicApi?.close();
    await queues?.close();
    await infra.close();
    throw error;
  }
}
