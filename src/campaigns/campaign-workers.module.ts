import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { SenderDomainsCoreModule } from '../domains/sender-domains.module';
import { VerpModule } from '../feedback/verp.module';
import { MailModule } from '../platform/mail/mail-transport';
import { CampaignDeliveryProcessor } from './campaign-delivery.processor';
import { CampaignFanoutProcessor } from './campaign-fanout.processor';
import { CampaignMessageBuilder } from './campaign-message';
import { CampaignWatchdog } from './campaign-watchdog';
import { CampaignWorkerWarmup } from './campaign-worker-warmup';
import { CampaignsCoreModule } from './campaigns-core.module';
import { RecipientTokens } from './recipient-token';

/**
 * The send pipeline's workers: fan-out, delivery and the watchdog. Loaded only by processes
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
  ],
})
export class CampaignWorkersModule {}
