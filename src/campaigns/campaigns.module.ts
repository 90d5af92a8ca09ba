import { Module } from '@nestjs/common';
import { ErasureModule } from '../erasure/erasure.module';
import { MailModule } from '../platform/mail/mail-transport';
import { SegmentsModule } from '../segments/segments.module';
import { TemplatesModule } from '../templates/templates.module';
import { CampaignErasureParticipant } from './campaign-erasure.participant';
import { CampaignReportsService } from './campaign-reports.service';
import { CampaignTimelineRepository } from './campaign-timeline.repository';
import { CampaignsDashboardController } from './campaigns-dashboard.controller';
import { CampaignQueuesModule } from './campaign-send-queue';
import { CampaignsController } from './campaigns.controller';
import { CampaignsRepository } from './campaigns.repository';
import { CampaignsService } from './campaigns.service';
import { RecipientActivityRepository } from './recipient-activity.repository';
import { RecipientTokens } from './recipient-token';
import { TrackingController } from './tracking.controller';
import { UnsubscribeController } from './unsubscribe.controller';

/**
 * Campaigns on /v1 and /dashboard/api: CRUD, send, stats, the dashboard's audience and
 * timeline; and the public unsubscribe and tracking links. Registers the campaigns' erasure
 * participant.
 */
@Module({
  imports: [CampaignQueuesModule, ErasureModule, MailModule, SegmentsModule, TemplatesModule],
  controllers: [
    CampaignsController,
    CampaignsDashboardController,
    UnsubscribeController,
    TrackingController,
  ],
  providers: [
    CampaignsRepository,
    CampaignsService,
    CampaignReportsService,
    CampaignTimelineRepository,
    RecipientTokens,
    RecipientActivityRepository,
    CampaignErasureParticipant,
  ],
  exports: [CampaignsRepository, CampaignsService],
})
export class CampaignsModule {}
