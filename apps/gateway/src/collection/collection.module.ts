import type { Metrics } from '@loupe/runtime';
import type { BlobStore, ColorRepository, ImageRepository } from '@loupe/storage';
import type { JobQueue } from '@loupe/queue';
import { DynamicModule, MiddlewareConsumer, Module, NestModule, Provider, RequestMethod, Type } from '@nestjs/common';
import { RouterModule } from '@nestjs/core';
import type { Logger } from 'pino';
import type { BasicAuthService } from '../http/basic-auth.service';
import { CallTelemetry } from '../http/call-telemetry.middleware';
import { BASIC_AUTH, BODY_LIMITS, REQUEST_LOG, REQUEST_METRICS } from '../http/collection-call';
import { COLLECTION_CALL_ROUTE, SERVED_OPERATIONS, servedOperations } from '../http/collection-routes';
import type { BodyLimits } from '../http/read-params';
import { UrlDownloader } from '../inputs/url-fetcher';
import { CollectionService } from '../services/collection.service';
import { ImageInputs } from '../services/image-inputs';
import { MatchingService } from '../services/matching.service';
import type { ServiceName } from '../services/operation';
import { QueryInputs } from '../services/query-inputs';
import { BLOB_STORE, COLOR_REPOSITORY, IMAGE_REPOSITORY, JOB_QUEUE } from '../services/tokens';
import { CollectionController } from './collection.controller';
import { ColorController } from './color.controller';
import { ColorModule } from './color.module';
import { MatchController } from './match.controller';
import { MatchModule } from './match.module';
import { MobileController } from './mobile.controller';
import { MobileModule } from './mobile.module';
import { WineController } from './wine.controller';
import { WineModule } from './wine.module';

/** What the collection services are built on; made in bootstrap.ts, so tests and main share one wiring. */
export interface CollectionWiring {
  auth: BasicAuthService;
  blobs: BlobStore;
  queue: JobQueue;
  images: ImageRepository;
  colors: ColorRepository;
  /** One downloader for every service, so that an account's download limit counts all of its calls. */
  downloads: UrlDownloader;
  limits: BodyLimits;
  log: Logger;
  metrics: Metrics;
}

/** Each service's module, mounted at `/<service>`. */
const SERVICE_MODULES: Readonly<Record<ServiceName, Type>> = { mobile: MobileModule, match: MatchModule, color: ColorModule, wine: WineModule };

/** The controllers that serve the operations: what /docs documents and metrics label. */
export const SERVICE_CONTROLLERS: readonly Type[] = [MobileController, MatchController, ColorController, WineController];

/** Overlays and the 404 of a path naming no service; imported after the services, so its routes come after theirs. */
@Module({ controllers: [CollectionController] })
class CollectionPathsModule {}

/**
 * The collection services' HTTP surface, `/<service>/<account>/rest/<operation>/`: one module per service with one
 * handler per operation, and the providers they share (global, so each service module sees them). CallTelemetry
 * times, counts and logs every call, an unknown service's or operation's included.
 */
@Module({})
export class CollectionModule implements NestModule {
  static with(wiring: CollectionWiring): DynamicModule {
    const providers: Provider[] = [
      { provide: BASIC_AUTH, useValue: wiring.auth },
      { provide: BLOB_STORE, useValue: wiring.blobs },
      { provide: JOB_QUEUE, useValue: wiring.queue },
      { provide: IMAGE_REPOSITORY, useValue: wiring.images },
      { provide: COLOR_REPOSITORY, useValue: wiring.colors },
      { provide: UrlDownloader, useValue: wiring.downloads },
      { provide: BODY_LIMITS, useValue: wiring.limits },
      { provide: REQUEST_LOG, useValue: wiring.log },
      { provide: REQUEST_METRICS, useValue: wiring.metrics },
      { provide: SERVED_OPERATIONS, useValue: servedOperations(SERVICE_CONTROLLERS) },
      ImageInputs,
      QueryInputs,
      CollectionService,
      MatchingService,
    ];
    return {
      module: CollectionModule,
      global: true,
      imports: [
        ...Object.values(SERVICE_MODULES),
        RouterModule.register(Object.entries(SERVICE_MODULES).map(([path, module]) => ({ path, module }))),
        CollectionPathsModule,
      ],
      providers,
      exports: providers,
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(CallTelemetry).forRoutes({ path: COLLECTION_CALL_ROUTE, method: RequestMethod.ALL });
  }
}
