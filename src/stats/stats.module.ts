import { Module } from '@nestjs/common';
import { ErasureModule } from '../erasure/erasure.module';
import { SubscribersModule } from '../subscribers/subscribers.module';
import { StatsCoreModule } from './stats-core.module';
import { StatsErasureParticipant } from './stats-erasure.participant';
import { StatsRepository } from './stats.repository';
import { StatsController } from './stats.controller';

/** GET /v1/stats (and the dashboard's overview), and what erasure means for statistics. */
@Module({
  imports: [StatsCoreModule, SubscribersModule, ErasureModule],
  controllers: [StatsController],
  providers: [StatsRepository, StatsErasureParticipant],
})
export class StatsModule {}
