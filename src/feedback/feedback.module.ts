import { Module } from '@nestjs/common';
import { CampaignsCoreModule } from '../campaigns/campaigns-core.module';
import { ErasureModule } from '../erasure/erasure.module';
import { SubscribersModule } from '../subscribers/subscribers.module';
import { SuppressionCoreModule } from '../suppression/suppression-core.module';
import { FeedbackRepository } from './feedback.repository';
import { FeedbackService } from './feedback.service';
import { MessageLocator } from './message-locator';
import { VerpModule } from './verp.module';

/**
 * The feedback loop's core: VERP addresses, locating a report's message, and acting on it.
 * Used by inbound mail, provider webhooks and the unsubscribe page.
 */
@Module({
  imports: [
    CampaignsCoreModule,
    SubscribersModule,
    SuppressionCoreModule,
    VerpModule,
    ErasureModule,
  ],
  providers: [FeedbackRepository, FeedbackService, MessageLocator],
  exports: [FeedbackService, MessageLocator, VerpModule],
})
export class FeedbackModule {}
