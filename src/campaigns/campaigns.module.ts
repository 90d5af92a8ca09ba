import { Module } from '@nestjs/common';
import { ErasureModule } from '../erasure/erasure.module';
import { MailModule } from '../platform/mail/mail-transport';
import { SegmentsModule } from '../segments/segments.module';
import { TemplatesModule } from '../templates/templates.module';
import { CampaignErasureParticipant } from './campaign-erasure.participant';
import { CampaignQueuesModule } from './campaign-send-queue';
import { CampaignsController } from './campaigns.controller';
import { CampaignsRepository } from './campaigns.repository';
import { CampaignsService } from './campaigns.service';
import { RecipientActivityRepository } from './recipient-activity.repository';
import { RecipientTokens } from './recipient-token';
import { TrackingController } from './tracking.controller';

/**
 * The campaigns API: CRUD, send, stats, and the tracking links (outside /v1; the unsubscribe
 * links are the opt-out module's). Registers the campaigns' erasure participant.
 */
@Module({
  imports: [CampaignQueuesModule, ErasureModule, MailModule, SegmentsModule, TemplatesModule],
  controllers: [CampaignsController, TrackingController],
  providers: [
    CampaignsRepository,
    CampaignsService,
    RecipientTokens,
    RecipientActivityRepository,
    CampaignErasureParticipant,
  ],
  exports: [CampaignsRepository, CampaignsService],
})
export class CampaignsModule {}
