import { Injectable } from '@nestjs/common';
import { newId } from '../../platform/crypto/ids';
import type { AccountId } from '../../platform/database/account-id';
import type { Db } from '../../platform/database/db';
import { StatsService } from '../../stats/stats.service';
import { CampaignLedgerRepository } from '../ledger/campaign-ledger.repository';
import { CampaignSendQueue } from './campaign-send-queue';
import { CampaignsRepository } from './campaigns.repository';
import { RESUME_RECHECK_MS } from './campaigns.settings';

/** What one send step of an automation mails. */
export interface StepContent {
  subject: string;
  from: string;
  templateId: string;
  html: string | null;
  text: string | null;
}

/** One send step's figures, over its campaigns. */
export interface StepSendCounts {
  sent: number;
  delivered: number;
  opens: number;
  uniqueOpens: number;
  clicks: number;
  uniqueClicks: number;
}

/**
 * How automations send: each send step is backed by a hidden campaign (per run entry: see
 * the automations module), and a run reaching the step adds one row to that campaign's
 * ledger, inside the automation engine's transaction. Delivery, suppression and opt-out at
 * send time, tracking, DKIM, deferrals, bounces, stats and the exactly-once bound are then
 * the campaign send's own, not a copy of it.
 */
@Injectable()
export class AutomationStepSends {
  constructor(
    private readonly campaigns: CampaignsRepository,
    private readonly ledger: CampaignLedgerRepository,
    private readonly queue: CampaignSendQueue,
    private readonly stats: StatsService,
  ) {}

  /** A new hidden campaign for a send step; returns its id. */
  async createCampaign(
    accountId: AccountId,
    automationId: string,
    name: string,
    content: StepContent,
    tx: Db,
  ): Promise<string> {
    const row = await this.campaigns.createStepCampaign(
      accountId,
      newId(),
      { automationId, name: name.slice(0, 255), ...campaignColumnsOf(content) },
      tx,
    );
    return row.id;
  }

  /** The step's campaigns send this content from now on (a paused automation was edited). */
  updateContent(accountId: AccountId, campaignIds: string[], content: StepContent, tx: Db) {
    return this.campaigns.updateStepCampaigns(
      accountId,
      campaignIds,
      campaignColumnsOf(content),
      tx,
    );
  }

  /**
   * Queues these subscribers' messages of the step's campaign in a new delivery batch, in the
   * caller's transaction; returns the batch to hand to `deliver` once it has committed.
   */
  async add(
    accountId: AccountId,
    campaignId: string,
    subscriberIds: string[],
    tx: Db,
  ): Promise<number> {
    const batch = await this.campaigns.nextStepBatch(
      accountId,
      campaignId,
      subscriberIds.length,
      tx,
    );
    await this.ledger.addStepRecipients(accountId, campaignId, batch, subscriberIds, tx);
    return batch;
  }

  /**
   * The delivery jobs of committed batches. Losing this call (a crash, Redis away) loses no
   * mail: the campaign watchdog finds the step campaign's pending rows and enqueues them.
   */
  deliver(accountId: AccountId, campaignId: string, batches: number[]): Promise<void> {
    return this.queue.enqueueDeliveries(accountId, campaignId, batches);
  }

  /** Which of these messages a person opened or clicked. */
  async activity(
    accountId: AccountId,
    pairs: { campaignId: string; subscriberId: string }[],
  ): Promise<Map<string, { opened: boolean; clicked: boolean }>> {
    const rows = await this.ledger.activityOf(accountId, pairs);
    return new Map(
      rows.map((row) => [
        `${row.campaign_id}.${row.subscriber_id}`,
        { opened: row.opened, clicked: row.clicked },
      ]),
    );
  }

  /** Summed figures of these campaigns (one send step's generations). */
  async counts(accountId: AccountId, campaignIds: string[]): Promise<StepSendCounts> {
    const total: StepSendCounts = {
      sent: 0,
      delivered: 0,
      opens: 0,
      uniqueOpens: 0,
      clicks: 0,
      uniqueClicks: 0,
    };
    for (const row of await this.ledger.deliveryCounts(accountId, campaignIds)) {
      total.sent += row.sent;
      total.delivered += row.delivered;
      total.uniqueOpens += row.unique_opens;
      total.uniqueClicks += row.unique_clicks;
    }
    for (const id of campaignIds) {
      const engagement = await this.stats.campaignEngagement(accountId, id);
      total.opens += engagement.opens;
      total.clicks += engagement.clicks;
    }
    return total;
  }

  /**
   * The automation was activated again: those of its step campaigns the reputation guard
   * paused send again, in the caller's transaction. Returns the ones to hand to `redeliver`
   * once it has committed.
   */
  resumePaused(accountId: AccountId, campaignIds: string[], tx: Db): Promise<string[]> {
    return this.campaigns.resumeStepCampaigns(accountId, campaignIds, tx);
  }

  /**
   * The waiting messages of resumed step campaigns, queued again: the fan-out re-enqueues each
   * unfinished batch, now and once more a little later for a batch whose job was still
   * finishing its last messages when the campaign paused. Losing this call loses no mail: the
   * campaign watchdog finds the pending rows.
   */
  async redeliver(accountId: AccountId, campaignIds: string[]): Promise<void> {
    for (const id of campaignIds) {
      await this.queue.enqueueFanout(accountId, id);
      await this.queue.enqueueFanoutLater(accountId, id, RESUME_RECHECK_MS);
    }
  }

  /** A deleted automation's campaigns: nothing more of theirs is sent. */
  async cancel(accountId: AccountId, campaignIds: string[], tx: Db): Promise<void> {
    await this.campaigns.cancelStepCampaigns(accountId, campaignIds, tx);
    for (const id of campaignIds) await this.ledger.cancelPending(accountId, id, tx);
  }
}

/** A send step's content as the columns of its hidden campaigns, on creation and on an edit. */
function campaignColumnsOf(content: StepContent) {
  return {
    subject: content.subject,
    fromAddress: content.from,
    templateId: content.templateId,
    html: content.html,
    text: content.text,
  };
}
