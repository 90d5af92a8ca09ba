import { Injectable } from '@nestjs/common';
import { Prisma } from '../../generated/prisma/client';
import { ErasedRange, ErasureService } from '../../erasure/erasure.service';
import type { AccountId } from '../../platform/database/account-id';
import type { Db } from '../../platform/database/db';
import { PrismaService } from '../../platform/database/prisma.service';
import { CampaignLedgerRepository } from '../ledger/campaign-ledger.repository';
import { CampaignsRepository } from '../core/campaigns.repository';

/** Sorts before every UUIDv7: the checkpoint of a fan-out that has read nobody yet. */
const BEFORE_FIRST_ID = '00000000-0000-0000-0000-000000000000';

export interface SnapshotResult {
  /** Delivery batches that received at least one pending recipient. */
  batches: number[];
  done: boolean;
}

/**
 * The fan-out's unit of work: snapshots the next keyset batch of a campaign's audience into
 * the ledger and advances the checkpoint on the campaign row, in one transaction
 * (listmonk-style), so a fan-out that dies anywhere resumes after the last committed batch
 * and never inserts anyone twice.
 */
@Injectable()
export class CampaignAudienceSnapshot {
  constructor(
    private readonly prisma: PrismaService,
    private readonly campaigns: CampaignsRepository,
    private readonly ledger: CampaignLedgerRepository,
    private readonly erasure: ErasureService,
  ) {}

  /**
   * `audience` is a condition over `subscribers s` (the segment's compiled filter, or TRUE);
   * `size` rows are read per call, numbered into delivery batches of `deliverySize`.
   */
  snapshotBatch(
    accountId: AccountId,
    campaignId: string,
    audience: Prisma.Sql,
    size: number,
    deliverySize: number,
  ): Promise<SnapshotResult> {
    return this.prisma.$transaction(async (tx) => {
      const checkpoint = await this.campaigns.lockFanoutCheckpoint(accountId, campaignId, tx);
      if (!checkpoint || checkpoint.done) return { batches: [], done: true };
      const afterId = checkpoint.afterId ?? BEFORE_FIRST_ID;

      const batch = await this.ledger.snapshot(
        {
          accountId,
          campaignId,
          checkpoint: { afterId, base: checkpoint.batches },
          audience,
          size,
          deliverySize,
        },
        tx,
      );
      const done = batch.matched < size;
      const lastId = batch.lastId ?? afterId;
      const erased = checkpoint.segmentId
        ? 0
        : await this.erasedInRange(
            accountId,
            campaignId,
            {
              since: checkpoint.createdAt,
              afterId,
              throughId: done ? null : lastId,
            },
            tx,
          );

      await this.campaigns.advanceFanout(
        accountId,
        campaignId,
        {
          lastId,
          batches: checkpoint.batches + Math.ceil(batch.matched / deliverySize),
          done,
          ...batch.intake,
          erased,
        },
        tx,
      );
      return { batches: batch.batches, done };
    });
  }

  /**
   * Erased identities cannot be matched against a segment any more (their data is gone), so
   * only an unsegmented campaign, whose audience is everyone, can count them honestly: the
   * tombstones of subscribers erased since the campaign was created whose ids fall in this
   * keyset range. Ones already in the ledger were counted when their row was skipped.
   */
  private async erasedInRange(
    accountId: AccountId,
    campaignId: string,
    range: ErasedRange,
    tx: Db,
  ): Promise<number> {
    const erased = await this.erasure.erasedSubscriberIds(accountId, range, tx);
    return this.ledger.countMissing(accountId, campaignId, erased, tx);
  }
}
