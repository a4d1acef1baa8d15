import { DynamicModule, Module } from '@nestjs/common';
import { CollectionController } from './http/collection.controller';
import { CollectionDispatcher } from './http/collection-dispatcher';

/** The HTTP surface. Adapters and services are built in bootstrap.ts and handed in, so tests and main share one wiring. */
@Module({})
export class AppModule {
  static with(dispatcher: CollectionDispatcher): DynamicModule {
    return {
      module: AppModule,
      controllers: [CollectionController],
      providers: [{ provide: CollectionDispatcher, useValue: dispatcher }],
    };
  }
}
