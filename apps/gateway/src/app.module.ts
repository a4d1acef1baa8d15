import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController, READINESS_PROBES } from './ops/health.controller';
import type { ReadinessProbe } from './ops/readiness';
import { ProtocolExceptionFilter } from './http/protocol-exception.filter';
import { ApiModule } from './api/api.module';
import type { ApiWiring } from './api/api-call';
import { CollectionModule, CollectionWiring } from './collection/collection.module';
import { CollectionImages, ConsoleModule } from './console';
import { DocsModule, OperationNames } from './docs';

/** The HTTP surface. Adapters are built in bootstrap.ts and handed in as providers. */
@Module({})
export class AppModule {
  static with(
    collection: CollectionWiring,
    ops: { probes: ReadinessProbe[]; api?: ApiWiring; operations?: OperationNames; images?: CollectionImages },
  ): DynamicModule {
    return {
      module: AppModule,
      imports: [
        TerminusModule.forRoot({ logger: false }),
        CollectionModule.with(collection),
        ...(ops.api ? [ApiModule.with(ops.api, collection.metrics)] : []),
        // /docs and /console/ (with the collection image route the console draws on).
        ...(ops.operations ? [DocsModule.with(ops.operations)] : []),
        ...(ops.images ? [ConsoleModule.with(ops.images)] : []),
      ],
      // No /metrics here: it is served on METRICS_PORT (bootstrap.ts), away from the public port.
      controllers: [HealthController],
      providers: [
        // Every failure of a collection call, and errors Nest raises itself (no route, an undecodable path), are
        // answered in the path's protocol.
        { provide: APP_FILTER, useClass: ProtocolExceptionFilter },
        { provide: READINESS_PROBES, useValue: ops.probes },
      ],
    };
  }
}
