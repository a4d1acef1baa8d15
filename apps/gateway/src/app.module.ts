import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController, READINESS_PROBES } from './ops/health.controller';
import type { ReadinessProbe } from './ops/readiness';
import { CollectionController } from './http/collection.controller';
import { CollectionDispatcher } from './http/collection-dispatcher';
import { ProtocolExceptionFilter } from './http/protocol-exception.filter';
import { ApiModule } from './api/api.module';
import type { ApiDispatcher } from './api/api.dispatcher';
import { CollectionImages, ConsoleModule } from './console';
import { DocsModule, OperationNames, ServiceCatalog } from './docs';

/** The HTTP surface. Adapters and services are built in bootstrap.ts and handed in, so tests and main share one wiring. */
@Module({})
export class AppModule {
  static with(
    dispatcher: CollectionDispatcher,
    ops: { probes: ReadinessProbe[]; api?: ApiDispatcher; operations?: OperationNames; catalog?: ServiceCatalog; images?: CollectionImages },
  ): DynamicModule {
    return {
      module: AppModule,
      imports: [
        TerminusModule.forRoot({ logger: false }),
        ...(ops.api ? [ApiModule.with(ops.api)] : []),
        // /docs and /console/ (with the collection image route the console draws on).
        ...(ops.operations ? [DocsModule.with(ops.operations, ops.catalog)] : []),
        ...(ops.images ? [ConsoleModule.with(ops.images)] : []),
      ],
      // No /metrics here: it is served on METRICS_PORT (bootstrap.ts), away from the public port.
      controllers: [HealthController, CollectionController],
      providers: [
        // Errors Nest raises itself (no route, an undecodable path) are answered in the path's protocol.
        { provide: APP_FILTER, useClass: ProtocolExceptionFilter },
        { provide: CollectionDispatcher, useValue: dispatcher },
        { provide: READINESS_PROBES, useValue: ops.probes },
      ],
    };
  }
}
