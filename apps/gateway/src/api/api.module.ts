import type { Metrics } from '@loupe/runtime';
import { DynamicModule, MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { REQUEST_METRICS } from '../http/collection-call';
import { API_WIRING, ApiWiring } from './api-call';
import { ApiController } from './api.controller';
import { ApiTelemetry } from './api-telemetry.middleware';

/** The public index API's HTTP surface; its services are built in bootstrap (createPublicApi). */
@Module({})
export class ApiModule implements NestModule {
  static with(api: ApiWiring, metrics: Metrics): DynamicModule {
    return {
      module: ApiModule,
      controllers: [ApiController],
      providers: [
        { provide: API_WIRING, useValue: api },
        { provide: REQUEST_METRICS, useValue: metrics },
      ],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(ApiTelemetry).forRoutes({ path: 'rest/:operation', method: RequestMethod.ALL }, { path: 'api/rest/:operation', method: RequestMethod.ALL });
  }
}
