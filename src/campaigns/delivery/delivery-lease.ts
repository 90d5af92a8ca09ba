import { Logger } from '@nestjs/common';
import {
  DELIVERY_LEASE_MARGIN_MS,
  DELIVERY_LEASE_MS,
  DELIVERY_LEASE_RENEW_MS,
} from '../core/campaigns.settings';
import {
  CampaignDeliveryRunsRepository,
  RunIdentity,
} from '../ledger/campaign-delivery-runs.repository';

const LEASE_SECONDS = DELIVERY_LEASE_MS / 1000;

/**
 * The lease of one delivery run, renewed in the background while the run works. The run asks
 * `holds` right before it hands each message to SMTP: judged by this process's own clock from
 * the last renewal that got through, so a worker that was frozen, or cut off from PostgreSQL,
 * stops before another run can have taken its recipients over. A renewal refused by the
 * database (the lease had lapsed) ends the run for good.
 */
export class DeliveryLease {
  private readonly logger = new Logger(DeliveryLease.name);
  private validUntil: number;
  private revoked = false;
  private renewing = false;
  private readonly timer: NodeJS.Timeout;

  private constructor(
    readonly run: RunIdentity,
    private readonly runs: CampaignDeliveryRunsRepository,
    askedAt: number,
  ) {
    this.validUntil = askedAt + DELIVERY_LEASE_MS - DELIVERY_LEASE_MARGIN_MS;
    this.timer = setInterval(() => void this.renew(), DELIVERY_LEASE_RENEW_MS);
    this.timer.unref();
  }

  /** Starts a run of the batch with a fresh lease. */
  static async acquire(
    runs: CampaignDeliveryRunsRepository,
    accountId: RunIdentity['accountId'],
    campaignId: string,
    batch: number,
  ): Promise<DeliveryLease> {
    const askedAt = Date.now();
    const run = await runs.start(accountId, campaignId, batch, LEASE_SECONDS);
    return new DeliveryLease(run, runs, askedAt);
  }

  /** Whether the run may still claim and send. */
  get holds(): boolean {
    return !this.revoked && Date.now() < this.validUntil;
  }

  /** The database refused a renewal: the run's claims may belong to another run by now. */
  get lost(): boolean {
    return this.revoked || Date.now() >= this.validUntil + DELIVERY_LEASE_MARGIN_MS;
  }

  /** Stops renewing (the run is over). */
  release(): void {
    clearInterval(this.timer);
  }

  private async renew(): Promise<void> {
    if (this.renewing || this.revoked) return;
    this.renewing = true;
    const askedAt = Date.now();
    try {
      if (await this.runs.renew(this.run, LEASE_SECONDS)) {
        this.validUntil = askedAt + DELIVERY_LEASE_MS - DELIVERY_LEASE_MARGIN_MS;
      } else {
        this.revoked = true;
        this.logger.warn(
          `campaign ${this.run.campaignId} batch ${this.run.batch}: lease lapsed; stopping`,
        );
      }
    } catch {
      // PostgreSQL is away: the lease runs out by itself unless a later renewal gets through.
    } finally {
      this.renewing = false;
    }
  }
}
