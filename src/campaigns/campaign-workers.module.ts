import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { MailModule } from '../platform/mail/mail-transport';
import { SuppressionCoreModule } from '../suppression/suppression-core.module';
import { VerpModule } from '../feedback/verp.module';
import { CampaignDeliveryProcessor } from './campaign-delivery.processor';
import { CampaignFanoutProcessor } from './campaign-fanout.processor';
import { CampaignLedgerRepository } from './campaign-ledger.repository';
import { CampaignMessageBuilder } from './campaign-message';
import { CampaignQueuesModule } from './campaign-send-queue';
import { CampaignWatchdog } from './campaign-watchdog';
import { CampaignWorkerWarmup } from './campaign-worker-warmup';
import { RecipientTokens } from './recipient-token';

/**
 * The send pipeline's workers: fan-out, delivery and the watchdog. Loaded only by processes
 * that run workers (AppModule.worker(), and AppModule.api() unless --api-only).
 */
@Module({
  imports: [AccountsModule, CampaignQueuesModule, MailModule, SuppressionCoreModule, VerpModule],
  providers: [
    CampaignLedgerRepository,
    CampaignMessageBuilder,
    RecipientTokens,
    CampaignFanoutProcessor,
    CampaignDeliveryProcessor,
    CampaignWatchdog,
    CampaignWorkerWarmup,
  ],
})
export class CampaignWorkersModule {}
