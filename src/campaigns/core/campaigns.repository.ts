import { Injectable } from '@nestjs/common';
import { Campaign, CampaignStatus, Prisma } from '../../generated/prisma/client';
import type { FeedbackKind } from '../../message-refs/feedback-report';
import { AccountId, accountIdOfRow } from '../../platform/database/account-id';
import type { Db } from '../../platform/database/db';
import { PrismaService } from '../../platform/database/prisma.service';
import { keysetPage, KeysetListing, PageRequest } from '../../platform/pagination/page-request';
import type { ActivityKind } from '../ledger/campaign-ledger.sql';
import * as sql from './campaigns.sql';

export type CampaignColumns = Pick<
  Prisma.CampaignUncheckedCreateInput,
  | 'name'
  | 'subject'
  | 'fromAddress'
  | 'templateId'
  | 'segmentId'
  | 'html'
  | 'text'
  | 'ratePerMinute'
>;

/** A state change of one conditional UPDATE: from these statuses to that one. */
export interface Transition {
  from: CampaignStatus[];
  to: CampaignStatus;
  /** Other columns the change sets (send_at when scheduling, …). */
  set?: Prisma.CampaignUpdateManyMutationInput;
}

/** Where a campaign's fan-out stands (read with the row locked). */
export interface FanoutCheckpoint {
  afterId: string | null;
  batches: number;
  done: boolean;
  segmentId: string | null;
  createdAt: Date;
}

/**
 * The campaigns table and its only writer: the definitions (CRUD before the send), the status
 * (draft → scheduled → sending ⇄ paused → sent, or cancelled), the fan-out checkpoint and the
 * counters. Delivery outcomes are counted on their run first (campaign_delivery_runs) and
 * folded into these counters when the run ends, so outcome writes never wait on this row.
 * The raw statements are in campaigns.sql.ts.
 */
@Injectable()
export class CampaignsRepository implements KeysetListing<Campaign> {
  readonly listName = 'campaigns';

  constructor(private readonly prisma: PrismaService) {}

  listPage(accountId: AccountId, page: PageRequest): Promise<Campaign[]> {
    const query = keysetPage(accountId, page);
    // The hidden campaigns behind automation send steps are the automations' to show.
    return this.prisma.campaign.findMany({
      ...query,
      where: { ...query.where, automationId: null },
    });
  }

  /** Any campaign of the account, the hidden ones behind automation send steps included. */
  findById(accountId: AccountId, id: string): Promise<Campaign | null> {
    return this.prisma.campaign.findFirst({ where: { accountId, id } });
  }

  /**
   * A campaign the account's people and clients see: not one behind an automation's send step,
   * which is the automation's own and reached only through it.
   */
  findVisible(accountId: AccountId, id: string): Promise<Campaign | null> {
    return this.prisma.campaign.findFirst({ where: { accountId, id, automationId: null } });
  }

  /** The `count` campaigns that started sending most recently, newest first (none hidden). */
  recentlyStarted(accountId: AccountId, count: number): Promise<Campaign[]> {
    return this.prisma.campaign.findMany({
      where: { accountId, startedAt: { not: null }, automationId: null },
      orderBy: [{ startedAt: 'desc' }, { id: 'desc' }],
      take: count,
    });
  }

  /** Just the status: what a delivery job re-reads while it claims (pause, cancel). */
  async statusOf(accountId: AccountId, id: string): Promise<CampaignStatus | undefined> {
    const row = await this.prisma.campaign.findFirst({
      where: { accountId, id },
      select: { status: true },
    });
    return row?.status;
  }

  create(accountId: AccountId, id: string, columns: CampaignColumns): Promise<Campaign> {
    return this.prisma.campaign.create({ data: { ...columns, id, accountId } });
  }

  /**
   * Changes a campaign that has not started (a draft, or scheduled); null when there is none
   * with that id (missing, or sending already).
   */
  async updateUnsent(
    accountId: AccountId,
    id: string,
    columns: Partial<CampaignColumns>,
  ): Promise<Campaign | null> {
    const { count } = await this.prisma.campaign.updateMany({
      where: { accountId, id, status: { in: ['draft', 'scheduled'] } },
      // Stamped here too: Prisma skips @updatedAt when no other column changes, and an empty
      // PATCH still counts as an update.
      data: { ...columns, updatedAt: new Date() },
    });
    return count === 0 ? null : this.findById(accountId, id);
  }

  async deleteDraft(accountId: AccountId, id: string): Promise<boolean> {
    const { count } = await this.prisma.campaign.deleteMany({
      where: { accountId, id, status: 'draft' },
    });
    return count > 0;
  }

  /**
   * Claims the send: the one atomic conditional UPDATE that lets exactly one of any number of
   * concurrent calls move the draft to `sending`. It also freezes the content: a template's
   * html and text are copied onto the campaign, so editing the template mid-send changes
   * nothing for the recipients still to come.
   */
  async startSending(accountId: AccountId, id: string): Promise<boolean> {
    return (await this.prisma.$executeRaw(sql.startSending(accountId, id))) === 1;
  }

  /**
   * Moves the campaign from one of `transition.from` to `transition.to` in one conditional
   * UPDATE: of concurrent changes, the first wins and the others find the status moved on.
   * Null when the campaign was not in one of those states.
   */
  async transition(
    accountId: AccountId,
    id: string,
    transition: Transition,
  ): Promise<Campaign | null> {
    const { count } = await this.prisma.campaign.updateMany({
      where: { accountId, id, status: { in: transition.from } },
      data: { ...transition.set, status: transition.to, updatedAt: new Date() },
    });
    return count === 0 ? null : this.findById(accountId, id);
  }

  /** The schedule poller's claim of a due campaign: scheduled → sending, content frozen. */
  async startScheduled(accountId: AccountId, id: string): Promise<boolean> {
    return (await this.prisma.$executeRaw(sql.startScheduled(accountId, id))) === 1;
  }

  /**
   * Scheduled campaigns whose time has come, across accounts (the poller looks after every
   * account's schedule, so this is where account ids come from rather than go to).
   */
  async dueCampaignsAcrossAccounts(
    limit: number,
  ): Promise<{ accountId: AccountId; id: string; fromAddress: string }[]> {
    const rows = await this.prisma.$queryRaw<
      { account_id: string; id: string; from_address: string }[]
    >(sql.dueCampaigns(limit));
    return rows.map((row) => ({
      accountId: accountIdOfRow(row.account_id),
      id: row.id,
      fromAddress: row.from_address,
    }));
  }

  /** Cancels an unfinished campaign inside `tx`, its row locked until `tx` ends. */
  async markCancelled(accountId: AccountId, id: string, tx: Db): Promise<boolean> {
    return (await tx.$executeRaw(sql.markCancelled(accountId, id))) === 1;
  }

  /** Counts the recipients a cancellation left unsent, inside its transaction. */
  async countCancelled(accountId: AccountId, id: string, count: number, tx: Db): Promise<void> {
    if (count > 0) await tx.$executeRaw(sql.countCancelled(accountId, id, count));
  }

  /**
   * `sending` → `sent` once the audience is fully snapshotted and no recipient is pending or in
   * flight. Conditional on `status = 'sending'`, so of all the jobs that notice, one flips it.
   */
  async completeIfFinished(accountId: AccountId, id: string, tx: Db): Promise<boolean> {
    return (await tx.$executeRaw(sql.completeIfFinished(accountId, id))) === 1;
  }

  /**
   * Sending campaigns that have not advanced for `idleSeconds`: the watchdog revives them.
   * The one query across accounts (the watchdog looks after every account's sends), so it
   * is where account ids come from rather than go to.
   */
  async stalledCampaignsAcrossAccounts(
    idleSeconds: number,
    limit: number,
  ): Promise<{ accountId: AccountId; id: string }[]> {
    const rows = await this.prisma.$queryRaw<{ account_id: string; id: string }[]>(
      sql.stalledCampaigns(idleSeconds, limit),
    );
    return rows.map((row) => ({ accountId: accountIdOfRow(row.account_id), id: row.id }));
  }

  /** Every sending campaign (up to `limit`), across accounts: see sendingCampaigns. */
  async sendingCampaignsAcrossAccounts(
    limit: number,
  ): Promise<{ accountId: AccountId; id: string }[]> {
    const rows = await this.prisma.$queryRaw<{ account_id: string; id: string }[]>(
      sql.sendingCampaigns(limit),
    );
    return rows.map((row) => ({ accountId: accountIdOfRow(row.account_id), id: row.id }));
  }

  /**
   * The fan-out checkpoint of a campaign that is sending, its row locked until `tx` ends;
   * undefined when it is not sending (any more).
   */
  async lockFanoutCheckpoint(
    accountId: AccountId,
    id: string,
    tx: Db,
  ): Promise<FanoutCheckpoint | undefined> {
    const [row] = await tx.$queryRaw<CheckpointRow[]>(sql.lockFanoutCheckpoint(accountId, id));
    if (!row) return undefined;
    return {
      afterId: row.fanout_after_id,
      batches: row.fanout_batches,
      done: row.fanout_done_at !== null,
      segmentId: row.segment_id,
      createdAt: row.created_at,
    };
  }

  /** Moves the checkpoint past a snapshotted batch and counts what it added, inside `tx`. */
  async advanceFanout(
    accountId: AccountId,
    id: string,
    advance: sql.FanoutAdvance,
    tx: Db,
  ): Promise<void> {
    await tx.$executeRaw(sql.advanceFanout(accountId, id, advance));
  }

  /**
   * Erasure: recipients of these campaigns (ids in ascending order, counts alongside) move
   * from `recipients` to `skipped_erased`. Rows are locked in id order first, the order the
   * delivery workers' writes take.
   */
  async countErasedSkips(
    accountId: AccountId,
    campaignIds: string[],
    counts: number[],
    tx: Db,
  ): Promise<void> {
    if (campaignIds.length === 0) return;
    await tx.$queryRaw(sql.lockInIdOrder(accountId, campaignIds));
    await tx.$executeRaw(sql.countErasedSkips(accountId, campaignIds, counts));
  }

  /** A recipient opened or clicked for the first time: the campaign counts people, not events. */
  async countFirstActivity(
    accountId: AccountId,
    id: string,
    kind: ActivityKind,
    tx: Db,
  ): Promise<void> {
    await tx.$executeRaw(sql.countFirstActivity(kind, accountId, id));
  }

  /**
   * The reputation guard's verdict, applied (see sql.pauseIfPastLimits): the campaign paused
   * with its reason, or undefined when it is within its limits (or not sending).
   */
  async pauseIfPastLimits(
    accountId: AccountId,
    id: string,
    limits: sql.RateLimits,
    db: Db = this.prisma,
  ): Promise<GuardPause | undefined> {
    const [row] = await db.$queryRaw<GuardPause[]>(sql.pauseIfPastLimits(accountId, id, limits));
    return row;
  }

  /** paused → sending, the guard's baseline moved to now (sql.resume); null when not paused. */
  async resume(accountId: AccountId, id: string): Promise<Campaign | null> {
    const count = await this.prisma.$executeRaw(sql.resume(accountId, id));
    return count === 0 ? null : this.findById(accountId, id);
  }

  /** A bounce, complaint or unsubscribe reported after the send, inside the report's write. */
  async countFeedback(accountId: AccountId, id: string, kind: FeedbackKind, tx: Db): Promise<void> {
    await tx.$executeRaw(sql.countFeedback(accountId, id, kind));
  }

  /**
   * The hidden campaign behind one send step of an automation: sending from the start (its
   * recipients are added run by run, never by a fan-out, hence a fan-out marked done), and
   * never completed (completeIfFinished leaves it alone).
   */
  createStepCampaign(
    accountId: AccountId,
    id: string,
    columns: CampaignColumns & { automationId: string },
    tx: Db,
  ): Promise<Campaign> {
    const now = new Date();
    return tx.campaign.create({
      data: {
        ...columns,
        id,
        accountId,
        status: 'sending',
        startedAt: now,
        fanoutDoneAt: now,
        progressAt: now,
      },
    });
  }

  /** A paused automation's edited send step: its hidden campaigns send the new content. */
  async updateStepCampaigns(
    accountId: AccountId,
    ids: string[],
    columns: Pick<CampaignColumns, 'subject' | 'fromAddress' | 'templateId' | 'html' | 'text'>,
    tx: Db,
  ): Promise<void> {
    if (ids.length === 0) return;
    await tx.campaign.updateMany({
      where: { accountId, id: { in: ids }, automationId: { not: null } },
      data: columns,
    });
  }

  /**
   * A new delivery batch number of a step campaign for `count` more recipients (each engine
   * pass adds its own batch, so its delivery job is a new one, never one that just ended).
   */
  async nextStepBatch(accountId: AccountId, id: string, count: number, tx: Db): Promise<number> {
    const [row] = await tx.$queryRaw<{ batch: number }[]>(sql.nextStepBatch(accountId, id, count));
    if (!row) throw new Error(`step campaign ${id} is missing`);
    return row.batch;
  }

  /**
   * An automation activated again: those of its hidden campaigns that were paused (only the
   * reputation guard pauses them) send again, judged from a new baseline (sql.resume). Returns
   * the ids of those it resumed.
   */
  async resumeStepCampaigns(accountId: AccountId, ids: string[], tx: Db): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = await tx.$queryRaw<{ id: string }[]>(sql.resumeStepCampaigns(accountId, ids));
    return rows.map((row) => row.id);
  }

  /** A deleted automation's hidden campaigns stop: cancelled, their unsent rows skipped. */
  async cancelStepCampaigns(accountId: AccountId, ids: string[], tx: Db): Promise<void> {
    if (ids.length === 0) return;
    await tx.campaign.updateMany({
      where: { accountId, id: { in: ids }, automationId: { not: null } },
      data: { status: 'cancelled', cancelledAt: new Date() },
    });
  }
}

/** A campaign the reputation guard paused, and the counts since its last resume. */
export interface GuardPause {
  id: string;
  name: string;
  status: string;
  paused_reason: 'complaint_rate' | 'bounce_rate';
  delivered: number;
  bounces: number;
  complaints: number;
  /** Set when the campaign is the hidden one behind an automation's send step. */
  automation_id: string | null;
}

interface CheckpointRow {
  fanout_after_id: string | null;
  fanout_batches: number;
  fanout_done_at: Date | null;
  segment_id: string | null;
  created_at: Date;
}
