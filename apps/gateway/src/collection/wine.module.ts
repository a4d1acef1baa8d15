import { Module } from '@nestjs/common';
import { WineService } from '../services/wine.service';
import { WineController } from './wine.controller';

/** The wine service's routes and label operations; mounted at `/wine` by CollectionModule. */
@Module({ controllers: [WineController], providers: [WineService] })
export class WineModule {}
