import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { CampaignsCoreModule } from '../campaigns/campaigns-core.module';
import { ErasureModule } from '../erasure/erasure.module';
import { StatsCoreModule } from '../stats/stats-core.module';
import { SubscribersModule } from '../subscribers/subscribers.module';
import { SuppressionCoreModule } from '../suppression/suppression-core.module';
import { TransactionalCoreModule } from '../transactional/transactional.module';
import { FeedbackRepository } from './feedback.repository';
import { FeedbackService } from './feedback.service';
import { MessageLocator } from './message-locator';
import { SentMessageLookup } from './sent-message-lookup';
import { VerpModule } from '../message-refs/verp.module';

/**
 * The feedback loop's core: VERP addresses, locating a report's message, and acting on it.
 * Used by inbound mail, provider webhooks and the unsubscribe page.
 */
@Module({
  imports: [
    AccountsModule,
    CampaignsCoreModule,
    StatsCoreModule,
    TransactionalCoreModule,
    SubscribersModule,
    SuppressionCoreModule,
    VerpModule,
    ErasureModule,
  ],
  providers: [FeedbackRepository, FeedbackService, MessageLocator, SentMessageLookup],
  exports: [FeedbackService, MessageLocator, VerpModule],
})
export class FeedbackModule {}
