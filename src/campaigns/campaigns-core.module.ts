import { Module } from '@nestjs/common';
import { ErasureModule } from '../erasure/erasure.module';
import { SegmentsModule } from '../segments/segments.module';
import { StatsCoreModule } from '../stats/stats-core.module';
import { SubscribersModule } from '../subscribers/subscribers.module';
import { SuppressionCoreModule } from '../suppression/suppression-core.module';
import { CampaignAudienceSnapshot } from './campaign-audience-snapshot';
import { CampaignCancellation } from './campaign-cancellation';
import { CampaignEvents } from './campaign-events';
import { CampaignFeedbackCounters } from './campaign-feedback-counters';
import { CampaignLedgerRepository } from './campaign-ledger.repository';
import { CampaignCompletion } from './campaign-completion';
import { CampaignDeliveryRunsRepository } from './campaign-delivery-runs.repository';
import { CampaignOutcomeWriter } from './campaign-outcome-writer';
import { CampaignQueuesModule } from './campaign-send-queue';
import { CampaignSentMessages } from './campaign-sent-messages';
import { CampaignsRepository } from './campaigns.repository';

/**
 * The campaigns data layer, shared by the API (CampaignsModule) and the send workers
 * (CampaignWorkersModule): the repositories that own campaigns, campaign_recipients and
 * campaign_delivery_runs,
 * and the units of work that span them (a fan-out batch, a chunk of outcomes, completion). What they
 * need of other domains comes through those domains' services.
 */
@Module({
  imports: [
    CampaignQueuesModule,
    ErasureModule,
    SegmentsModule,
    StatsCoreModule,
    SubscribersModule,
    SuppressionCoreModule,
  ],
  providers: [
    CampaignEvents,
    CampaignsRepository,
    CampaignLedgerRepository,
    CampaignAudienceSnapshot,
    CampaignCancellation,
    CampaignOutcomeWriter,
    CampaignFeedbackCounters,
    CampaignSentMessages,
    CampaignDeliveryRunsRepository,
    CampaignCompletion,
  ],
  exports: [
    CampaignDeliveryRunsRepository,
    CampaignCompletion,
    CampaignEvents,
    CampaignFeedbackCounters,
    CampaignSentMessages,
    CampaignsRepository,
    CampaignLedgerRepository,
    CampaignAudienceSnapshot,
    CampaignCancellation,
    CampaignOutcomeWriter,
    CampaignQueuesModule,
    ErasureModule,
    SegmentsModule,
    StatsCoreModule,
    SubscribersModule,
    SuppressionCoreModule,
  ],
})
export class CampaignsCoreModule {}
