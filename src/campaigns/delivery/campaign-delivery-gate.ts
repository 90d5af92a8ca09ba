import { Inject, Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { Campaign } from '../../generated/prisma/client';
import { HeraldConfig } from '../../platform/config/config';
import { CONFIG } from '../../platform/config/config.module';
import type { AccountId } from '../../platform/database/account-id';
import { reportRedisError } from '../../platform/redis/redis-outage-log';
import { SEND_RATE_RETRY_MS, SEND_STATUS_CHECK_MS } from '../core/campaigns.settings';
import { CampaignsRepository } from '../core/campaigns.repository';
import { SendRateLimiter, SendRates } from './send-rate-limiter';

/**
 * What a delivery job asks before each claim of recipients: may it claim, and how many? The
 * answer is 0 once the campaign is no longer sending (paused or cancelled: the job claims no
 * more and ends when what it holds is sent and recorded), otherwise as many as the campaign's
 * and the account's send rates allow right now, waiting for room when they allow none.
 */
export interface DeliveryGate {
  admit(wanted: number): Promise<number>;
}

/** Opens one gate per delivery job (the job has just read the campaign as `sending`). */
@Injectable()
export class CampaignDeliveryGates {
  constructor(
    @Inject(CONFIG) private readonly config: HeraldConfig,
    private readonly campaigns: CampaignsRepository,
    private readonly limiter: SendRateLimiter,
  ) {}

  open(accountId: AccountId, campaign: Campaign): DeliveryGate {
    const rates: SendRates = {
      campaign: campaign.ratePerMinute ?? undefined,
      account: this.config.sendRatePerMinute,
    };
    return new ThrottledGate(accountId, campaign.id, rates, this.campaigns, this.limiter);
  }
}

class ThrottledGate implements DeliveryGate {
  private checkedAt = Date.now();
  private readonly throttled: boolean;

  constructor(
    private readonly accountId: AccountId,
    private readonly campaignId: string,
    private readonly rates: SendRates,
    private readonly campaigns: CampaignsRepository,
    private readonly limiter: SendRateLimiter,
  ) {
    this.throttled = rates.campaign !== undefined || rates.account !== undefined;
  }

  async admit(wanted: number): Promise<number> {
    for (;;) {
      if (Date.now() - this.checkedAt >= SEND_STATUS_CHECK_MS) {
        const status = await this.campaigns.statusOf(this.accountId, this.campaignId);
        this.checkedAt = Date.now();
        if (status !== 'sending') return 0;
      }
      if (!this.throttled) return wanted;
      const grant = await this.limiter
        .take(this.accountId, this.campaignId, this.rates, wanted)
        .catch((error: unknown) => {
          // Without Redis the pace cannot be kept: wait for it rather than send unthrottled.
          reportRedisError('the campaign send throttle', error);
          return { granted: 0, retryInMs: SEND_RATE_RETRY_MS };
        });
      if (grant.granted > 0) return grant.granted;
      // Wake for the next token, or sooner to notice a pause while the pace is slow.
      const untilCheck = this.checkedAt + SEND_STATUS_CHECK_MS - Date.now();
      await sleep(Math.max(1, Math.min(grant.retryInMs, untilCheck)));
    }
  }
}
