import { Inject, Injectable } from '@nestjs/common';
import type { FeedbackKind } from '../../message-refs/feedback-report';
import { HeraldConfig } from '../../platform/config/config';
import { CONFIG } from '../../platform/config/config.module';
import type { AccountId } from '../../platform/database/account-id';
import { PrismaService } from '../../platform/database/prisma.service';
import { PeriodicService } from '../../platform/timing/periodic-task';
import type { Outcome } from '../ledger/recipient-outcome';
import { CampaignEvents } from './campaign-events';
import { CampaignHalts } from './campaign-halts';
import { CampaignsRepository } from './campaigns.repository';
import { REPUTATION_CHECK_MS } from './campaigns.settings';
import type { RateLimits } from './campaigns.sql';
import { StepCampaignPauses } from './step-campaign-pauses';

/**
 * Stops a send that is burning the sender's reputation: a campaign whose complaints or hard
 * bounces over its delivered messages pass COMPLAINT_RATE_LIMIT or BOUNCE_RATE_LIMIT, once at
 * least RATE_GUARD_MIN_DELIVERED were delivered, pauses itself (`paused_reason` says which),
 * halts this process's runs of it at once (the others on their next status read, as for a
 * person's pause) and publishes `campaign.paused`. The hidden campaign of an automation's send
 * step is judged the same way, but it is the automation's: its pause pauses the automation in
 * the same transaction (StepCampaignPauses), and no campaign event tells of a campaign that no
 * client can see.
 *
 * Outcome writes and feedback only note that a campaign's counts moved; the check runs apart,
 * every REPUTATION_CHECK_MS, once per noted campaign, so the send's hot path gains no work and
 * no round trip, and a flood of outcomes costs one check per pass.
 */
@Injectable()
export class ReputationGuard extends PeriodicService {
  private readonly limits: RateLimits;
  /** Campaigns whose counts moved since the last pass, by id. */
  private moved = new Map<string, AccountId>();

  constructor(
    @Inject(CONFIG) config: HeraldConfig,
    private readonly prisma: PrismaService,
    private readonly campaigns: CampaignsRepository,
    private readonly stepCampaigns: StepCampaignPauses,
    private readonly events: CampaignEvents,
    private readonly halts: CampaignHalts,
  ) {
    super('the reputation guard', REPUTATION_CHECK_MS);
    const guard = config.deliverability.reputationGuard;
    this.limits = {
      complaintRate: guard.complaintRateLimit,
      bounceRate: guard.bounceRateLimit,
      minDelivered: guard.minDelivered,
    };
  }

  /**
   * Outcomes were written: a delivery moves the denominator (the minimum may just have been
   * reached), a hard bounce the numerator. Skips and deferrals move neither.
   */
  afterOutcomes(accountId: AccountId, campaignId: string, outcomes: Outcome[]): void {
    if (outcomes.some((o) => o.kind === 'delivered' || (o.kind === 'failed' && o.hardBounce))) {
      this.moved.set(campaignId, accountId);
    }
  }

  /** A report was counted on the campaign: complaints and hard bounces move its rates. */
  afterFeedback(accountId: AccountId, campaignId: string, kind: FeedbackKind): void {
    if (kind === 'complaint' || kind === 'hard_bounce') this.moved.set(campaignId, accountId);
  }

  protected async pass(): Promise<void> {
    if (this.moved.size === 0) return;
    const due = this.moved;
    this.moved = new Map();
    for (const [campaignId, accountId] of due) {
      try {
        await this.check(accountId, campaignId);
      } catch (error) {
        // Checked again on the next pass.
        if (!this.moved.has(campaignId)) this.moved.set(campaignId, accountId);
        this.logger.warn(`campaign ${campaignId}: rate check failed: ${String(error)}`);
      }
    }
  }

  private async check(accountId: AccountId, campaignId: string): Promise<void> {
    const paused = await this.prisma.$transaction(async (tx) => {
      const row = await this.campaigns.pauseIfPastLimits(accountId, campaignId, this.limits, tx);
      if (row?.automation_id) {
        const pause = { accountId, automationId: row.automation_id, reason: row.paused_reason };
        await this.stepCampaigns.guardPaused(pause, tx);
      }
      return row;
    });
    if (!paused) return;
    this.halts.halt(campaignId);
    this.logger.warn(
      `campaign ${campaignId} paused itself (${paused.paused_reason}): ` +
        `${paused.complaints} complaints and ${paused.bounces} hard bounces ` +
        `over ${paused.delivered} delivered`,
    );
    if (!paused.automation_id) {
      await this.events.statusChanged(accountId, campaignId, 'campaign.paused');
    }
  }
}
