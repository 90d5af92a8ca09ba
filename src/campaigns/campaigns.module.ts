import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { SenderDomainsCoreModule } from '../domains/sender-domains.module';
import { MailModule } from '../platform/mail/mail-transport';
import { TemplatesModule } from '../templates/templates.module';
import { CampaignErasureParticipant } from './core/campaign-erasure.participant';
import { CampaignOperationsController } from './operations/campaign-operations.controller';
import { CampaignOperationsService } from './operations/campaign-operations.service';
import { CampaignRendering } from './content/campaign-rendering';
import { CampaignTestSender } from './operations/campaign-test-sender';
import { CampaignReportsService } from './operations/campaign-reports.service';
import { CampaignTimelineRepository } from './ledger/campaign-timeline.repository';
import { CampaignsDashboardController } from './operations/campaigns-dashboard.controller';
import { CampaignsCoreModule } from './campaigns-core.module';
import { CampaignsController } from './definition/campaigns.controller';
import { CampaignsService } from './definition/campaigns.service';
import { RecipientActivityService } from './tracking/recipient-activity.service';
import { RecipientTokens } from '../message-refs/recipient-token';
import { TrackingController } from './tracking/tracking.controller';
import { RepeatedHits } from './tracking/repeated-hits';

/**
 * Campaigns on /v1 and /dashboard/api: CRUD, send, stats, operations (schedule, pause, resume,
 * cancel, test, duplicate), the dashboard's audience, timeline and preview; and the public tracking links (the unsubscribe links are the opt-out module's). Registers the campaigns' erasure
 * participant.
 */
@Module({
  imports: [
    AccountsModule,
    CampaignsCoreModule,
    MailModule,
    TemplatesModule,
    SenderDomainsCoreModule,
  ],
  controllers: [
    CampaignsController,
    CampaignOperationsController,
    CampaignsDashboardController,
    TrackingController,
  ],
  providers: [
    CampaignsService,
    CampaignOperationsService,
    CampaignRendering,
    CampaignTestSender,
    CampaignReportsService,
    CampaignTimelineRepository,
    RecipientTokens,
    RecipientActivityService,
    RepeatedHits,
    CampaignErasureParticipant,
  ],
  exports: [CampaignsService],
})
export class CampaignsModule {}
