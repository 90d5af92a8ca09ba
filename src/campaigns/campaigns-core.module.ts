import { Module } from '@nestjs/common';
import { MessagesCoreModule } from '../messages/messages-core.module';
import { ErasureModule } from '../erasure/erasure.module';
import { SegmentsModule } from '../segments/segments.module';
import { StatsCoreModule } from '../stats/stats-core.module';
import { SubscribersModule } from '../subscribers/subscribers.module';
import { SuppressionCoreModule } from '../suppression/suppression-core.module';
import { CampaignAudienceSnapshot } from './delivery/campaign-audience-snapshot';
import { CampaignCancellation } from './core/campaign-cancellation';
import { CampaignEvents } from './core/campaign-events';
import { CampaignFeedbackCounters } from './core/campaign-feedback-counters';
import { CampaignLedgerRepository } from './ledger/campaign-ledger.repository';
import { CampaignCompletion } from './core/campaign-completion';
import { CampaignDeliveryRunsRepository } from './ledger/campaign-delivery-runs.repository';
import { CampaignOutcomeWriter } from './delivery/campaign-outcome-writer';
import { CampaignQueuesModule } from './core/campaign-send-queue';
import { CampaignSentMessages } from './ledger/campaign-sent-messages';
import { CampaignsRepository } from './core/campaigns.repository';
import { CampaignHalts } from './core/campaign-halts';
import { ReputationGuard } from './core/reputation-guard';
import { AutomationStepSends } from './core/automation-step-sends';
import { StepCampaignPauses } from './core/step-campaign-pauses';

/** The other domains the data layer uses, passed on to both campaign modules. */
const DOMAINS = [
  CampaignQueuesModule,
  ErasureModule,
  MessagesCoreModule,
  SegmentsModule,
  StatsCoreModule,
  SubscribersModule,
  SuppressionCoreModule,
];

/** Every unit of the data layer: each is shared by the API and the send workers. */
const DATA_LAYER = [
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
  CampaignHalts,
  ReputationGuard,
  AutomationStepSends,
  StepCampaignPauses,
];

/**
 * The campaigns data layer, shared by the API (CampaignsModule) and the send workers
 * (CampaignWorkersModule): the repositories that own campaigns, campaign_recipients and
 * campaign_delivery_runs,
 * and the units of work that span them (a fan-out batch, a chunk of outcomes, completion). What they
 * need of other domains comes through those domains' services.
 */
@Module({
  imports: DOMAINS,
  providers: DATA_LAYER,
  exports: [...DATA_LAYER, ...DOMAINS],
})
export class CampaignsCoreModule {}
