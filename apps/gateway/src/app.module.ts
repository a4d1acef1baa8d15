import type { Metrics } from '@loupe/runtime';
import type { BlobStore } from '@loupe/storage';
import { DynamicModule, MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import type { Logger } from 'pino';
import { HealthController, READINESS_PROBES } from './ops/health.controller';
import type { ReadinessProbe } from './ops/readiness';
import type { BasicAuthService } from './http/basic-auth.service';
import { CallTelemetry } from './http/call-telemetry.middleware';
import { BASIC_AUTH, BLOB_STORE, BODY_LIMITS, REQUEST_LOG, REQUEST_METRICS, SERVICE_TABLES, ServiceTables } from './http/collection-call';
import { CollectionController } from './http/collection.controller';
import { ProtocolExceptionFilter } from './http/protocol-exception.filter';
import type { BodyLimits } from './http/read-params';
import { ApiModule } from './api/api.module';
import type { ApiWiring } from './api/api-call';
import { CollectionImages, ConsoleModule } from './console';
import { DocsModule, OperationNames, ServiceCatalog } from './docs';

/** What the collection services' HTTP path is built on; made in bootstrap.ts, so tests and main share one wiring. */
export interface CollectionWiring {
  services: ServiceTables;
  auth: BasicAuthService;
  blobs: BlobStore;
  limits: BodyLimits;
  log: Logger;
  metrics: Metrics;
}

/** `/<service>/<account>/rest/<operation>/`: the calls CallTelemetry times, counts and logs. */
export const COLLECTION_CALL_ROUTE = ':service/:account/rest/:operation';

/** The HTTP surface. Adapters and services are built in bootstrap.ts and handed in as providers. */
@Module({})
export class AppModule implements NestModule {
  static with(
    collection: CollectionWiring,
    ops: { probes: ReadinessProbe[]; api?: ApiWiring; operations?: OperationNames; catalog?: ServiceCatalog; images?: CollectionImages },
  ): DynamicModule {
    return {
      module: AppModule,
      imports: [
        TerminusModule.forRoot({ logger: false }),
        ...(ops.api ? [ApiModule.with(ops.api, collection.metrics)] : []),
        // /docs and /console/ (with the collection image route the console draws on).
        ...(ops.operations ? [DocsModule.with(ops.operations, ops.catalog)] : []),
        ...(ops.images ? [ConsoleModule.with(ops.images)] : []),
      ],
      // No /metrics here: it is served on METRICS_PORT (bootstrap.ts), away from the public port.
      controllers: [HealthController, CollectionController],
      providers: [
        // Every failure of a collection call, and errors Nest raises itself (no route, an undecodable path), are
        // answered in the path's protocol.
        { provide: APP_FILTER, useClass: ProtocolExceptionFilter },
        { provide: SERVICE_TABLES, useValue: collection.services },
        { provide: BASIC_AUTH, useValue: collection.auth },
        { provide: BLOB_STORE, useValue: collection.blobs },
        { provide: BODY_LIMITS, useValue: collection.limits },
        { provide: REQUEST_LOG, useValue: collection.log },
        { provide: REQUEST_METRICS, useValue: collection.metrics },
        { provide: READINESS_PROBES, useValue: ops.probes },
      ],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(CallTelemetry).forRoutes({ path: COLLECTION_CALL_ROUTE, method: RequestMethod.ALL });
  }
}
