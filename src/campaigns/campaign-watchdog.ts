import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { WATCHDOG_BATCH, WATCHDOG_IDLE_SECONDS, WATCHDOG_TICK_MS } from '../platform/settings';
import { CampaignSendQueue } from './campaign-send-queue';
import { CampaignsRepository } from './campaigns.repository';

/**
 * PostgreSQL, not Redis, is the record of what is still to send. If Redis loses its jobs
 * (a restart without persistence) or an enqueue failed after the send was accepted, nothing
 * would ever move the campaign again; every worker process therefore looks for sending
 * campaigns that stopped advancing and re-adds their fan-out job, which re-enqueues the
 * unfinished batches and completes the campaign. Re-adding is idempotent by job id.
 */
@Injectable()
export class CampaignWatchdog implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(CampaignWatchdog.name);
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(
    private readonly campaigns: CampaignsRepository,
    private readonly queue: CampaignSendQueue,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.tick(), WATCHDOG_TICK_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      const stalled = await this.campaigns.stalledCampaigns(WATCHDOG_IDLE_SECONDS, WATCHDOG_BATCH);
      for (const campaign of stalled) {
        this.logger.warn(
          `campaign ${campaign.id} idle for ${WATCHDOG_IDLE_SECONDS}s; resuming its fan-out`,
        );
        await this.queue.enqueueFanout(campaign.accountId, campaign.id);
      }
    } catch (error) {
      this.logger.error(`watchdog tick failed: ${String(error)}`);
    } finally {
      this.running = false;
    }
  }
}
