import { Module } from '@nestjs/common';
import { CampaignsModule } from '../campaigns/campaigns.module';
import { ErasureModule } from '../erasure/erasure.module';
import { StatsCoreModule } from '../stats/stats-core.module';
import { SubscribersModule } from '../subscribers/subscribers.module';
import { TransactionalCoreModule } from '../transactional/transactional.module';
import { ConversionsController } from './conversions.controller';
import { ConversionsRepository } from './conversions.repository';
import { ConversionsService } from './conversions.service';

/** POST /v1/conversions: revenue to subscribers and campaigns. */
@Module({
  imports: [
    CampaignsModule,
    ErasureModule,
    StatsCoreModule,
    SubscribersModule,
    TransactionalCoreModule,
  ],
  controllers: [ConversionsController],
  providers: [ConversionsRepository, ConversionsService],
})
export class ConversionsModule {}
