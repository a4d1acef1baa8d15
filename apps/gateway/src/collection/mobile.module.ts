import { Module } from '@nestjs/common';
import { MobileController } from './mobile.controller';

/** The mobile service's routes; mounted at `/mobile` by CollectionModule. */
@Module({ controllers: [MobileController] })
export class MobileModule {}
