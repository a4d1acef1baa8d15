import { Module } from '@nestjs/common';
import { ColorService } from '../services/color.service';
import { ColorController } from './color.controller';

/** The color service's routes and operations; mounted at `/color` by CollectionModule. */
@Module({ controllers: [ColorController], providers: [ColorService] })
export class ColorModule {}
