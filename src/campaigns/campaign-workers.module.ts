import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { SenderDomainsCoreModule } from '../domains/sender-domains.module';
import { VerpModule } from '../message-refs/verp.module';
import { MailModule } from '../platform/mail/mail-transport';
import { CampaignDeliveryGates } from './delivery/campaign-delivery-gate';
import { CampaignDeliveryProcessor } from './delivery/campaign-delivery.processor';
import { CampaignFanoutProcessor } from './delivery/campaign-fanout.processor';
import { CampaignMessageBuilder } from './content/campaign-message';
import { CampaignSchedulePoller } from './delivery/campaign-schedule-poller';
import { CampaignWatchdog } from './delivery/campaign-watchdog';
import { CampaignWorkerWarmup } from './delivery/campaign-worker-warmup';
import { CampaignsCoreModule } from './campaigns-core.module';
import { RecipientTokens } from '../message-refs/recipient-token';
import { SendRateLimiter } from './delivery/send-rate-limiter';

/**
 * The send pipeline's workers: fan-out, delivery (with its pause check and send throttle), the
 * watchdog and the schedule poller. Loaded only by processes
 * that run workers (AppModule.worker(), and AppModule.api() unless --api-only).
 */
@Module({
  imports: [AccountsModule, CampaignsCoreModule, MailModule, SenderDomainsCoreModule, VerpModule],
  providers: [
    CampaignMessageBuilder,
    RecipientTokens,
    CampaignFanoutProcessor,
    CampaignDeliveryProcessor,
    CampaignWatchdog,
    CampaignWorkerWarmup,
    CampaignSchedulePoller,
    CampaignDeliveryGates,
    SendRateLimiter,
  ],
})
export class CampaignWorkersModule {}
