import { Prisma } from '../../src/generated/prisma/client';
import { CampaignAudienceSnapshot } from '../../src/campaigns/delivery/campaign-audience-snapshot';
import {
  CampaignDeliveryRunsRepository,
  RunIdentity,
} from '../../src/campaigns/ledger/campaign-delivery-runs.repository';
import { CampaignLedgerRepository } from '../../src/campaigns/ledger/campaign-ledger.repository';
import { CampaignOutcomeWriter } from '../../src/campaigns/delivery/campaign-outcome-writer';
import type { AccountId } from '../../src/platform/database/account-id';
import { CampaignsService } from '../../src/campaigns/definition/campaigns.service';
import { Tenant } from './factories';
import { TestContext } from './test-context';
import type { TestEnv } from './test-env';

/** One ledger row as a test compares it. */
export interface LedgerRow {
  subscriber_id: string;
  batch: number;
  status: string;
  skip_reason: string | null;
  smtp_code: number | null;
  attempts: number;
  claimed: boolean;
  sent: boolean;
}

/** The campaign columns a send moves, as a test compares them. */
export interface CampaignCounters {
  status: string;
  recipient_count: number;
  delivered_count: number;
  failed_count: number;
  bounce_count: number;
  skipped_erased_count: number;
  skipped_unsubscribed_count: number;
  skipped_bounced_count: number;
  open_count: number;
  click_count: number;
  fanout_after_id: string | null;
  fanout_batches: number;
  fanout_done: boolean;
}

/**
 * A draft campaign of the tenant (to everyone, or to a segment), started the way the API
 * starts it (CampaignsService.send: draft → sending, audited, fan-out job queued; nothing
 * consumes the queue in a TestContext, so the test runs the fan-out itself).
 */
export async function startedCampaign(
  ctx: TestContext,
  tenant: Tenant,
  segmentId?: string,
): Promise<string> {
  const campaign = await ctx.make.campaign(tenant.accountId, { segmentId });
  await ctx.get(CampaignsService).send(tenant.principal, campaign.id);
  return campaign.id;
}

/** Runs the fan-out's unit of work until the whole audience is in the ledger. */
export async function snapshotAll(
  ctx: TestContext,
  tenant: Tenant,
  campaignId: string,
  { size = 1000, deliverySize = 10, audience = Prisma.sql`TRUE` } = {},
): Promise<number[]> {
  const batches: number[] = [];
  for (;;) {
    const result = await ctx
      .get(CampaignAudienceSnapshot)
      .snapshotBatch(tenant.accountId, campaignId, audience, size, deliverySize);
    batches.push(...result.batches);
    if (result.done) return batches;
  }
}

export async function ledgerRows(ctx: TestContext, campaignId: string): Promise<LedgerRow[]> {
  return ctx.prisma.$queryRaw<LedgerRow[]>`
    SELECT subscriber_id::text, batch, status::text, skip_reason::text, smtp_code, attempts,
           claimed_at IS NOT NULL AS claimed, sent_at IS NOT NULL AS sent
      FROM campaign_recipients WHERE campaign_id = ${campaignId}::uuid
     ORDER BY subscriber_id`;
}

export async function counters(ctx: TestContext, campaignId: string): Promise<CampaignCounters> {
  const [row] = await ctx.prisma.$queryRaw<CampaignCounters[]>`
    SELECT status::text, recipient_count, delivered_count, failed_count, bounce_count,
           skipped_erased_count, skipped_unsubscribed_count, skipped_bounced_count,
           open_count, click_count, fanout_after_id::text, fanout_batches,
           fanout_done_at IS NOT NULL AS fanout_done
      FROM campaigns WHERE id = ${campaignId}::uuid`;
  return row;
}

/** The statistics columns of subscribers, by id. */
export async function statistics(ctx: TestContext, ids: string[]) {
  const rows = await ctx.prisma.subscriber.findMany({
    where: { id: { in: ids } },
    select: {
      id: true,
      status: true,
      statSent: true,
      statDelivered: true,
      statHardBounces: true,
      statSoftBounces: true,
      statOpens: true,
      statClicks: true,
      lastSentAt: true,
      lastOpenAt: true,
      lastClickAt: true,
    },
  });
  return new Map(rows.map((row) => [row.id, row]));
}

/** A delivery run of the batch, as a delivery job starts one (a 30 s lease). */
export function startRun(
  ctx: TestContext,
  accountId: AccountId,
  campaignId: string,
  batch = 0,
): Promise<RunIdentity> {
  return ctx.get(CampaignDeliveryRunsRepository).start(accountId, campaignId, batch, 30);
}

/**
 * Starts a run of the batch while the test holds some other transaction open, and tells which
 * came first: the run started ('settled'), or its row's insert was seen waiting for a lock
 * (`waiting`, the test's words for what it waits on). `run` settles once the run has started.
 */
export async function startRunBeside(
  ctx: TestContext,
  env: TestEnv,
  accountId: AccountId,
  campaignId: string,
  waiting: string,
): Promise<{ outcome: string; run: Promise<RunIdentity> }> {
  const run = startRun(ctx, accountId, campaignId);
  const outcome = await env.settledOrWaiting(run, '%INSERT INTO campaign_delivery_runs%', waiting);
  return { outcome, run };
}

/**
 * What a delivery job does to a batch whose relay accepts everything: a run claims up to
 * `limit` rows, records each delivered and ends. Returns the ids delivered.
 */
export async function deliverBatch(
  ctx: TestContext,
  accountId: AccountId,
  campaignId: string,
  { batch = 0, limit = 10 } = {},
): Promise<string[]> {
  const run = await startRun(ctx, accountId, campaignId, batch);
  const { ids } = await ctx.get(CampaignLedgerRepository).claim(run, limit);
  await ctx.get(CampaignOutcomeWriter).record(
    run,
    ids.map((subscriberId) => ({ subscriberId, kind: 'delivered' as const })),
  );
  await ctx.get(CampaignDeliveryRunsRepository).end(run);
  return ids;
}
