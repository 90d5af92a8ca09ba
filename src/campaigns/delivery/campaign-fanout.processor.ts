import { Processor } from '@nestjs/bullmq';
import { Job } from 'bullmq';
import { Prisma } from '../../generated/prisma/client';
import { AccountId, parseAccountId } from '../../platform/database/account-id';
import { MailTransport } from '../../platform/mail/mail-transport';
import { QueueProcessor, workerOptions } from '../../platform/queue/queue-processor';
import { QUEUES } from '../../platform/queue/queue.module';
import { DELIVERY_BATCH, FANOUT_BATCH, FANOUT_CONCURRENCY } from '../core/campaigns.settings';
import { SegmentsService } from '../../segments/segments.service';
import { CampaignAudienceSnapshot } from './campaign-audience-snapshot';
import { CampaignCompletion } from '../core/campaign-completion';
import { CampaignLedgerRepository } from '../ledger/campaign-ledger.repository';
import { CampaignSendQueue, FanoutJob } from '../core/campaign-send-queue';
import { CampaignsRepository } from '../core/campaigns.repository';

/**
 * The fan-out: streams a campaign's audience in keyset batches into the send ledger and
 * enqueues one delivery job per batch as soon as it is committed, so the first messages leave
 * while the rest of the audience is still being read. Resumable at any point: the checkpoint
 * lives on the campaign row and moves in the same transaction as the ledger rows.
 */
@Processor(QUEUES.campaignFanout, workerOptions(FANOUT_CONCURRENCY))
export class CampaignFanoutProcessor extends QueueProcessor {
  constructor(
    private readonly campaigns: CampaignsRepository,
    private readonly ledger: CampaignLedgerRepository,
    private readonly snapshot: CampaignAudienceSnapshot,
    private readonly segments: SegmentsService,
    private readonly queue: CampaignSendQueue,
    private readonly completion: CampaignCompletion,
    private readonly transport: MailTransport,
  ) {
    super('the campaign fan-out worker');
  }

  async process(job: Job<FanoutJob>): Promise<void> {
    const accountId = parseAccountId(job.data.accountId);
    const { campaignId } = job.data;
    // Relay connections open while the audience is written, not when the first message waits.
    this.transport.openConnections();
    const campaign = await this.campaigns.findById(accountId, campaignId);
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
      // The first snapshot is one delivery batch, so the first messages leave while the rest
      // of the audience is still being written; later ones are larger (fewer transactions).
      for (let rows = DELIVERY_BATCH; ; rows = FANOUT_BATCH) {
        const { batches, done } = await this.snapshot.snapshotBatch(
          accountId,
          campaignId,
          audience,
          rows,
          DELIVERY_BATCH,
        );
        await this.queue.enqueueDeliveries(accountId, campaignId, batches);
        if (done) break;
      }
    }
    // An audience that was empty or entirely skipped has no delivery job to finish it.
    if (await this.completion.completeIfFinished(accountId, campaignId)) {
      this.logger.log(`campaign ${campaignId} sent`);
    }
  }

  /**
   * The segment's filter as SQL over `subscribers s`, read once per fan-out run. A segment
   * in use by an unsent campaign cannot be deleted (SegmentsRepository.delete).
   */
  private async audience(accountId: AccountId, segmentId: string | null): Promise<Prisma.Sql> {
    const audience = await this.segments.audienceSql(accountId, segmentId);
    if (!audience) throw new Error(`segment ${segmentId} of the campaign is missing`);
    return audience;
  }
}
