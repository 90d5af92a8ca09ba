import { Injectable } from '@nestjs/common';
import { PeriodicService } from '../../platform/timing/periodic-task';
import { SharedStore } from '../../platform/store/shared-store';
import {
  WATCHDOG_BATCH,
  WATCHDOG_IDLE_SECONDS,
  WATCHDOG_TICK_MS,
} from '../core/campaigns.settings';
import { CampaignSendQueue } from '../core/campaign-send-queue';
import { CampaignsRepository } from '../core/campaigns.repository';

/**
 * A key that lives as long as Redis keeps its data. When it is missing, Redis restarted empty
 * (or this is the first start): every job it held is gone.
 */
const JOBS_KEPT_MARKER = 'campaign-jobs-kept';

/**
 * PostgreSQL, not Redis, is the record of what is still to send. If Redis loses its jobs (a
 * restart without persistence) or an enqueue failed after the send was accepted, nothing would
 * ever move the campaign again. Every worker process therefore checks, every few seconds, that
 * Redis still holds its marker (when it does not, every sending campaign's fan-out is added
 * again at once), and looks for sending campaigns without a live delivery run that stopped
 * advancing. A fan-out run re-enqueues the unfinished batches and completes the campaign; adding
 * it is idempotent by job id, so several processes noticing at once is harmless.
 */
@Injectable()
export class CampaignWatchdog extends PeriodicService {
  constructor(
    private readonly campaigns: CampaignsRepository,
    private readonly queue: CampaignSendQueue,
    private readonly store: SharedStore,
  ) {
    super('watchdog tick', WATCHDOG_TICK_MS);
  }

  protected async pass(): Promise<void> {
    if (await this.redisLostItsJobs()) {
      const sending = await this.campaigns.sendingCampaignsAcrossAccounts(WATCHDOG_BATCH);
      if (sending.length > 0) {
        this.logger.warn(`Redis lost its jobs; resuming ${sending.length} sending campaigns`);
      }
      await this.revive(sending);
    }
    const stalled = await this.campaigns.stalledCampaignsAcrossAccounts(
      WATCHDOG_IDLE_SECONDS,
      WATCHDOG_BATCH,
    );
    for (const campaign of stalled) {
      this.logger.warn(
        `campaign ${campaign.id} idle for ${WATCHDOG_IDLE_SECONDS}s; resuming its fan-out`,
      );
    }
    await this.revive(stalled);
  }

  /** Sets the marker; true when it was missing. Unreachable Redis: nothing to do yet. */
  private async redisLostItsJobs(): Promise<boolean> {
    return this.store.markIfAbsent(JOBS_KEPT_MARKER).catch(() => false);
  }

  private async revive(
    campaigns: { accountId: Parameters<CampaignSendQueue['enqueueFanout']>[0]; id: string }[],
  ) {
    for (const campaign of campaigns) {
      await this.queue.enqueueFanout(campaign.accountId, campaign.id);
    }
  }
}
