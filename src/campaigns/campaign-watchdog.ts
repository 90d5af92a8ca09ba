import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { CampaignLedgerRepository } from './campaign-ledger.repository';
import { CampaignSendQueue } from './campaign-send-queue';

const TICK_MS = 15_000;
/** A sending campaign whose counters have not moved for this long gets its fan-out again. */
const IDLE_SECONDS = 60;

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
    private readonly ledger: CampaignLedgerRepository,
    private readonly queue: CampaignSendQueue,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.tick(), TICK_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (const campaign of await this.ledger.stalledCampaigns(IDLE_SECONDS)) {
        this.logger.warn(`campaign ${campaign.id} idle for ${IDLE_SECONDS}s; resuming its fan-out`);
        await this.queue.enqueueFanout(campaign.account_id, campaign.id);
      }
    } catch (error) {
      this.logger.error(`watchdog tick failed: ${String(error)}`);
    } finally {
      this.running = false;
    }
  }
}
