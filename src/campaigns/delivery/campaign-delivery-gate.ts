import { Inject, Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { Campaign } from '../../generated/prisma/client';
import { HeraldConfig } from '../../platform/config/config';
import { CONFIG } from '../../platform/config/config.module';
import type { AccountId } from '../../platform/database/account-id';
import { reportStoreError } from '../../platform/logging/store-outage-log';
import { SEND_RATE_RETRY_MS, SEND_STATUS_CHECK_MS } from '../core/campaigns.settings';
import { CampaignsRepository } from '../core/campaigns.repository';
import { CampaignHalts } from '../core/campaign-halts';
import { DeliveryLease } from './delivery-lease';
import { SendRateLimiter, SendRates } from './send-rate-limiter';

/**
 * What a delivery job asks before each claim of recipients: may it claim, and how many? The
 * answer is 0 once the campaign is no longer sending, otherwise as many as the campaign's
 * and the account's send rates allow right now, waiting for room when they allow none.
 */
export interface DeliveryGate {
  admit(wanted: number): Promise<number>;
}

/**
 * Opens one gate per delivery run (its job has just read the campaign as `sending`). A pause
 * halts the run (DeliveryLease.halt: no message it holds starts any more), whether a person or
 * the reputation guard paused the campaign: at once when it was paused in this process
 * (CampaignHalts), else when the gate reads the status. A cancellation only stops the claims:
 * what the run holds is sent and recorded, since the cancelled campaign never resumes.
 */
@Injectable()
export class CampaignDeliveryGates {
  constructor(
    @Inject(CONFIG) private readonly config: HeraldConfig,
    private readonly campaigns: CampaignsRepository,
    private readonly limiter: SendRateLimiter,
    private readonly halts: CampaignHalts,
  ) {}

  open(accountId: AccountId, campaign: Campaign, lease: DeliveryLease): DeliveryGate {
    lease.whenReleased(this.halts.register(campaign.id, () => lease.halt()));
    const rates: SendRates = {
      campaign: campaign.ratePerMinute ?? undefined,
      account: this.config.sendRatePerMinute,
    };
    return new ThrottledGate(accountId, campaign.id, rates, this.campaigns, this.limiter, lease);
  }
}

class ThrottledGate implements DeliveryGate {
  /**
   * Never, so the first claim reads the status. The job read it before this run registered
   * with CampaignHalts; a pause between the two would halt nothing, and without this read the
   * run would claim and send for up to SEND_STATUS_CHECK_MS of a paused campaign.
   */
  private checkedAt = 0;
  private readonly throttled: boolean;

  constructor(
    private readonly accountId: AccountId,
    private readonly campaignId: string,
    private readonly rates: SendRates,
    private readonly campaigns: CampaignsRepository,
    private readonly limiter: SendRateLimiter,
    private readonly lease: DeliveryLease,
  ) {
    this.throttled = rates.campaign !== undefined || rates.account !== undefined;
  }

  async admit(wanted: number): Promise<number> {
    for (;;) {
      if (this.lease.wasHalted) return 0;
      if (Date.now() - this.checkedAt >= SEND_STATUS_CHECK_MS) {
        const status = await this.campaigns.statusOf(this.accountId, this.campaignId);
        this.checkedAt = Date.now();
        if (status === 'paused') this.lease.halt();
        if (status !== 'sending') return 0;
      }
      if (!this.throttled) return wanted;
      const grant = await this.limiter
        .take(this.accountId, this.campaignId, this.rates, wanted)
        .catch((error: unknown) => {
          // Without its store the pace cannot be kept: wait for it rather than send unthrottled.
          reportStoreError('the campaign send throttle', error);
          return { granted: 0, retryInMs: SEND_RATE_RETRY_MS };
        });
      if (grant.granted > 0) return grant.granted;
      // Wake for the next token, or sooner to notice a pause while the pace is slow.
      const untilCheck = this.checkedAt + SEND_STATUS_CHECK_MS - Date.now();
      await sleep(Math.max(1, Math.min(grant.retryInMs, untilCheck)));
    }
  }
}
