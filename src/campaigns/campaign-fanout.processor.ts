import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { Job } from 'bullmq';
import { Prisma } from '../generated/prisma/client';
import { QUEUES } from '../platform/queue/queue.module';
import { parseSegmentFilter, segmentFilterSql } from '../segments/segment-filter';
import { CampaignLedgerRepository } from './campaign-ledger.repository';
import { CampaignSendQueue, FanoutJob } from './campaign-send-queue';

/** Audience rows read and written per fan-out transaction: bounded memory, short locks. */
export const FANOUT_BATCH = 1000;
/** Recipients per delivery job: small enough to spread over workers and to retry cheaply. */
export const DELIVERY_BATCH = 250;

/**
 * The fan-out: streams a campaign's audience in keyset batches into the send ledger and
 * enqueues one delivery job per batch as soon as it is committed, so the first messages leave
 * while the rest of the audience is still being read. Resumable at any point: the checkpoint
 * lives on the campaign row and moves in the same transaction as the ledger rows.
 */
@Processor(QUEUES.campaignFanout, {
  concurrency: 2,
  lockDuration: 15_000,
  stalledInterval: 5_000,
  maxStalledCount: 10,
})
export class CampaignFanoutProcessor extends WorkerHost {
  private readonly logger = new Logger(CampaignFanoutProcessor.name);

  constructor(
    private readonly ledger: CampaignLedgerRepository,
    private readonly queue: CampaignSendQueue,
  ) {
    super();
  }

  async process(job: Job<FanoutJob>): Promise<void> {
    const { accountId, campaignId } = job.data;
    const campaign = await this.ledger.findCampaign(accountId, campaignId);
    if (!campaign || campaign.status !== 'sending') return;

    // A fan-out that died between committing a batch and enqueuing its delivery job (or a
    // Redis that lost its jobs) leaves batches nobody will deliver: enqueue them again.
    // Delivery job ids are stable, so batches whose jobs still exist are not duplicated.
    await this.queue.enqueueDeliveries(
      accountId,
      campaignId,
      await this.ledger.unfinishedBatches(accountId, campaignId),
    );

    if (!campaign.fanoutDoneAt) {
      const audience = await this.audience(accountId, campaign.segmentId);
      for (;;) {
        const { batches, done } = await this.ledger.snapshotBatch(
          accountId,
          campaignId,
          audience,
          FANOUT_BATCH,
          DELIVERY_BATCH,
        );
        await this.queue.enqueueDeliveries(accountId, campaignId, batches);
        if (done) break;
      }
    }
    // An audience that was empty or entirely skipped has no delivery job to finish it.
    if (await this.ledger.completeIfFinished(accountId, campaignId)) {
      this.logger.log(`campaign ${campaignId} sent`);
    }
  }

  /**
   * The segment's filter as SQL over `subscribers s`, read once per fan-out run. A segment
   * in use by an unsent campaign cannot be deleted (SegmentsRepository.delete).
   */
  private async audience(accountId: string, segmentId: string | null): Promise<Prisma.Sql> {
    if (!segmentId) return Prisma.sql`TRUE`;
    const filter = await this.ledger.segmentFilter(accountId, segmentId);
    if (filter === undefined) throw new Error(`segment ${segmentId} of the campaign is missing`);
    return segmentFilterSql(parseSegmentFilter(filter));
  }
}
