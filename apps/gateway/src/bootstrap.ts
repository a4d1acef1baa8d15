import 'reflect-metadata';
import { parseAccountsSpec } from '@loupe/auth';
import { AppConfig, ensureAccountUser, Infrastructure, openInfrastructure, openQueues, QueueRuntime } from '@loupe/runtime';
import { ColorRepository } from '@loupe/storage';
import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { AddressInfo } from 'node:net';
import { AppModule } from './app.module';
import { BasicAuthService } from './http/basic-auth.service';
import { CollectionDispatcher } from './http/collection-dispatcher';
import { CollectionService } from './services/collection.service';
import { ColorOperations } from './services/color.service';
import { ImageInputs } from './services/image-inputs';
import { matchOperations } from './services/match.service';
import { MatchingService } from './services/matching.service';
import { mobileOperations } from './services/mobile.service';
import { QueryInputs } from './services/query-inputs';
import type { OperationTable, ServiceName } from './services/operation';

export interface Gateway {
  app: INestApplication;
  infra: Infrastructure;
  queues: QueueRuntime;
  /** Base URL once listening, e.g. http://127.0.0.1:8080 */
  url: string;
  close(): Promise<void>;
}

function logError(message: string, error?: unknown): void {
  console.error(JSON.stringify({ level: 'error', msg: message, error: error instanceof Error ? error.stack : String(error) }));
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

/** Builds the whole gateway (adapters, services, HTTP) from a configuration and starts listening. */
export async function startGateway(config: AppConfig, options: { host?: string } = {}): Promise<Gateway> {
  const infra = await openInfrastructure(config);
  let queues: QueueRuntime | undefined;
  try {
    for (const seed of parseAccountsSpec(config.accounts)) await ensureAccountUser(infra.accounts, seed);
    await seedDemoAccount(config, infra);
    queues = await openQueues(config, infra);
    const downloads = { ...config.download, allowPrivate: config.allowPrivateUrls };
    const collection = new CollectionService(infra.images, queues.queue, new ImageInputs(infra.blobs, downloads));
    const matching = new MatchingService(queues.queue, new QueryInputs(infra.blobs, downloads));
    const notYet: OperationTable = {};
    const services: Record<ServiceName, OperationTable> = {
      mobile: mobileOperations(collection, matching),
      match: matchOperations(collection, matching),
      color: new ColorOperations(collection, queues.queue, new ImageInputs(infra.blobs, downloads), infra.images, new ColorRepository(infra.db)).table(),
      wine: notYet,
    };
    const dispatcher = new CollectionDispatcher(
      new BasicAuthService(infra.accounts),
      infra.blobs,
      services,
      { maxBodyBytes: config.maxBodyBytes, maxFileBytes: config.maxFileBytes },
      logError,
    );
    const app = await NestFactory.create(AppModule.with(dispatcher), { bodyParser: false, logger: ['error', 'warn'] });
    app.enableShutdownHooks();
    await app.listen(config.port, options.host ?? '0.0.0.0');
    const address = app.getHttpServer().address() as AddressInfo;
    const openQueuesRuntime = queues;
    return {
      app,
      infra,
      queues: openQueuesRuntime,
      url: `http://127.0.0.1:${address.port}`,
      close: async () => {
        await app.close();
        await openQueuesRuntime.close();
        await infra.close();
      },
    };
  } catch (error) {
    await queues?.close();
    await infra.close();
    throw error;
  }
}
