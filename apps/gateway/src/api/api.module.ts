import { DynamicModule, Module } from '@nestjs/common';
import { ApiController } from './api.controller';
import { ApiDispatcher } from './api.dispatcher';

/** The public index API's HTTP surface; the dispatcher is built in bootstrap (see createApiDispatcher). */
@Module({})
export class ApiModule {
  static with(dispatcher: ApiDispatcher): DynamicModule {
    return { module: ApiModule, controllers: [ApiController], providers: [{ provide: ApiDispatcher, useValue: dispatcher }] };
  }
}
