import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { SenderDomainsCoreModule } from '../domains/sender-domains.module';
import { MailModule } from '../platform/mail/mail-transport';
import { TemplatesModule } from '../templates/templates.module';
import { CampaignErasureParticipant } from './campaign-erasure.participant';
import { CampaignOperationsController } from './campaign-operations.controller';
import { CampaignOperationsService } from './campaign-operations.service';
import { CampaignRendering } from './campaign-rendering';
import { CampaignTestSender } from './campaign-test-sender';
import { CampaignReportsService } from './campaign-reports.service';
import { CampaignTimelineRepository } from './campaign-timeline.repository';
import { CampaignsDashboardController } from './campaigns-dashboard.controller';
import { CampaignsCoreModule } from './campaigns-core.module';
import { CampaignsController } from './campaigns.controller';
import { CampaignsService } from './campaigns.service';
import { RecipientActivityService } from './recipient-activity.service';
import { RecipientTokens } from '../message-refs/recipient-token';
import { TrackingController } from './tracking.controller';

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
    CampaignErasureParticipant,
  ],
  exports: [CampaignsService],
})
export class CampaignsModule {}
