import { Module } from '@nestjs/common';
import { MatchController } from './match.controller';

/** The match service's routes; mounted at `/match` by CollectionModule. */
@Module({ controllers: [MatchController] })
export class MatchModule {}
