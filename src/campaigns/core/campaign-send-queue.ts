import { BullModule, InjectQueue } from '@nestjs/bullmq';
import { Injectable, Module } from '@nestjs/common';
import { JobsOptions, Queue } from 'bullmq';
import type { AccountId } from '../../platform/database/account-id';
import { QUEUES } from '../../platform/queue/queue.module';
import { reportStoreError } from '../../platform/logging/store-outage-log';
import {
  DELIVERY_ATTEMPTS,
  DELIVERY_BACKOFF_MS,
  FANOUT_ATTEMPTS,
  FANOUT_BACKOFF_MS,
} from './campaigns.settings';

/**
 * Jobs carry ids only: never an address or any other personal data. Read back from Redis,
 * `accountId` is plain data again: processors parse it (parseAccountId) before any query.
 */
export interface FanoutJob {
  accountId: string;
  campaignId: string;
}

export interface DeliveryJob {
  accountId: string;
  campaignId: string;
  batch: number;
}

/**
 * Job ids make enqueuing idempotent: BullMQ ignores an add whose id exists. Finished jobs are
 * removed, so after a lost Redis or a crashed fan-out the same job can be added again; the
 * ledger, not the queue, decides who still gets mail.
 */
const FANOUT_OPTIONS: JobsOptions = {
  attempts: FANOUT_ATTEMPTS,
  backoff: { type: 'exponential', delay: FANOUT_BACKOFF_MS },
  removeOnComplete: true,
  removeOnFail: true,
};
const DELIVERY_OPTIONS: JobsOptions = {
  attempts: DELIVERY_ATTEMPTS,
  backoff: { type: 'exponential', delay: DELIVERY_BACKOFF_MS },
  removeOnComplete: true,
  removeOnFail: true,
};

export const fanoutJobId = (campaignId: string) => campaignId;
export const deliveryJobId = (campaignId: string, batch: number) => `${campaignId}-${batch}`;

@Injectable()
export class CampaignSendQueue {
  constructor(
    @InjectQueue(QUEUES.campaignFanout) private readonly fanout: Queue<FanoutJob>,
    @InjectQueue(QUEUES.campaignDelivery) private readonly delivery: Queue<DeliveryJob>,
  ) {
    fanout.on('error', (error) => reportStoreError('the campaign fan-out queue', error));
    delivery.on('error', (error) => reportStoreError('the campaign delivery queue', error));
  }

  async enqueueFanout(accountId: AccountId, campaignId: string): Promise<void> {
    await this.fanout.add(
      'fanout',
      { accountId, campaignId },
      { ...FANOUT_OPTIONS, jobId: fanoutJobId(campaignId) },
    );
  }

  /**
   * One more run of the fan-out `delayMs` from now, under its own job id (a fan-out run is
   * idempotent, and runs of one campaign serialise on its checkpoint row).
   */
  async enqueueFanoutLater(accountId: AccountId, campaignId: string, delayMs: number) {
    await this.fanout.add(
      'fanout',
      { accountId, campaignId },
      { ...FANOUT_OPTIONS, delay: delayMs, jobId: `${fanoutJobId(campaignId)}-at-${Date.now()}` },
    );
  }

  async enqueueDeliveries(accountId: AccountId, campaignId: string, batches: number[]) {
    if (batches.length === 0) return;
    await this.delivery.addBulk(
      batches.map((batch) => ({
        name: 'deliver',
        data: { accountId, campaignId, batch },
        opts: { ...DELIVERY_OPTIONS, jobId: deliveryJobId(campaignId, batch) },
      })),
    );
  }
}

/** The campaign queues and their producer: for the API (send) and the workers (fan-out). */
@Module({
  imports: [
    BullModule.registerQueue({ name: QUEUES.campaignFanout }, { name: QUEUES.campaignDelivery }),
  ],
  providers: [CampaignSendQueue],
  exports: [CampaignSendQueue, BullModule],
})
export class CampaignQueuesModule {}
