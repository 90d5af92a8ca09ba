import { Logger } from '@nestjs/common';
import { RenewedLease } from '../../platform/timing/renewed-lease';
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
const TERMS = {
  leaseMs: DELIVERY_LEASE_MS,
  renewEveryMs: DELIVERY_LEASE_RENEW_MS,
  marginMs: DELIVERY_LEASE_MARGIN_MS,
};

/**
 * The lease of one delivery run (a RenewedLease on its run row), renewed while the run
 * works: the run asks `holds` right before it hands each message to SMTP, and a renewal the
 * database refuses ends the run for good.
 */
export class DeliveryLease {
  private static readonly logger = new Logger(DeliveryLease.name);
  private readonly lease: RenewedLease;
  private readonly onRelease: (() => void)[] = [];
  private halted = false;

  private constructor(
    readonly run: RunIdentity,
    runs: CampaignDeliveryRunsRepository,
    askedAt: number,
  ) {
    this.lease = new RenewedLease(
      TERMS,
      askedAt,
      () => runs.renew(run, LEASE_SECONDS),
      () =>
        DeliveryLease.logger.warn(
          `campaign ${run.campaignId} batch ${run.batch}: lease lapsed; stopping`,
        ),
      DeliveryLease.logger,
    );
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

  /** Whether the run may still claim and send: the lease holds and the run was not halted. */
  get holds(): boolean {
    return !this.halted && this.lease.holds;
  }

  /**
   * The campaign was paused: the run claims nothing more and starts no message it holds (the
   * rows of those stay its claims, taken over by the run after a resume); a message whose
   * relay has not taken it yet is abandoned before its end.
   */
  halt(): void {
    this.halted = true;
  }

  /**
   * Whether the lease itself still holds, halted or not: a halted run's rows are still its
   * own, so the outcomes of what it sent are still written.
   */
  get leased(): boolean {
    return this.lease.holds;
  }

  /** Whether the run was halted by a pause (the job ends; the lease itself is fine). */
  get wasHalted(): boolean {
    return this.halted;
  }

  /** Runs `hook` when the run ends. */
  whenReleased(hook: () => void): void {
    this.onRelease.push(hook);
  }

  /** The database refused a renewal: the run's claims may belong to another run by now. */
  get lost(): boolean {
    return this.lease.lost;
  }

  /** Stops renewing (the run is over). */
  release(): void {
    this.lease.end();
    for (const hook of this.onRelease.splice(0)) hook();
  }
}
