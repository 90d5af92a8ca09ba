import { CampaignLedgerRepository } from '../../src/campaigns/ledger/campaign-ledger.repository';
import { CampaignOutcomeWriter } from '../../src/campaigns/delivery/campaign-outcome-writer';
import { CampaignsService } from '../../src/campaigns/definition/campaigns.service';
import { RecipientActivityService } from '../../src/campaigns/tracking/recipient-activity.service';
import { ErasureService } from '../../src/erasure/erasure.service';
import { ComposedStatement, relation } from '../../src/platform/database/composed-statement';
import { runSql } from '../../src/platform/database/sql-runner';
import { SubscriberStatistics } from '../../src/subscribers/subscriber-statistics.service';
import {
  counters,
  deliverBatch,
  ledgerRows,
  snapshotAll,
  startedCampaign,
  startRun,
  statistics,
} from '../support/campaign-ledger-fixtures';
import { TestContext } from '../support/test-context';
import { TestEnv } from '../support/test-env';

/**
 * The counters that say what happened, on PostgreSQL: campaign stats as the API reports them
 * against the ledger they summarise, opens and clicks (people on the campaign, every event on
 * the subscriber), and transactional mail counted on the recipient's statistics.
 */
const PERSON = {
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
};
const LINK = 'https://acme.example/offer';

describe('statistics counters', () => {
  let env: TestEnv;
  let ctx: TestContext;

  beforeAll(async () => {
    env = await TestEnv.create();
    ctx = await TestContext.start(env);
  });
  afterAll(async () => {
    await ctx?.close();
    await env?.dispose();
  });

  /** A fresh account whose campaign reached `count` subscribers (all delivered). */
  async function delivered(count: number) {
    const tenant = await ctx.make.tenant();
    const ids = (await ctx.make.subscribers(tenant.accountId, count)).map((p) => p.id).sort();
    const campaignId = await startedCampaign(ctx, tenant);
    await snapshotAll(ctx, tenant, campaignId);
    await deliverBatch(ctx, tenant.accountId, campaignId);
    // A minute ago: opens and clicks right after delivery would be taken for a machine's.
    await env.sql(
      `UPDATE campaign_recipients SET sent_at = now() - interval '1 minute' WHERE campaign_id = $1`,
      [campaignId],
    );
    return { tenant, accountId: tenant.accountId, campaignId, ids };
  }

  it('reports campaign stats that add up to the ledger, while sending and when sent', async () => {
    const tenant = await ctx.make.tenant();
    const ids = (await ctx.make.subscribers(tenant.accountId, 7)).map((p) => p.id).sort();
    await ctx.prisma.subscriber.update({ where: { id: ids[6] }, data: { status: 'bounced' } });
    const campaignId = await startedCampaign(ctx, tenant);
    await snapshotAll(ctx, tenant, campaignId);
    const ledger = ctx.get(CampaignLedgerRepository);
    const writer = ctx.get(CampaignOutcomeWriter);
    const service = ctx.get(CampaignsService);

    const run = await startRun(ctx, tenant.accountId, campaignId);
    const claimed = (await ledger.claim(run, 4)).ids.sort();
    // Counted on the run, not folded into the campaign yet: the stats include it all the same.
    await writer.record(run, [
      { subscriberId: claimed[0], kind: 'delivered' },
      { subscriberId: claimed[1], kind: 'delivered' },
      { subscriberId: claimed[2], kind: 'failed', smtpCode: 550, hardBounce: true },
      { subscriberId: claimed[3], kind: 'skipped', reason: 'unsubscribed' },
    ]);
    const midway = await service.stats(tenant.principal, campaignId);
    expect(midway).toMatchObject({
      status: 'sending',
      recipients: 5, // 7 in the audience, one bounced before, one unsubscribed since
      sent: 3,
      delivered: 2,
      failed: 1,
      bounces: 1,
      skipped_bounced: 1,
      skipped_unsubscribed: 1,
      skipped_erased: 0,
      outstanding: 2,
    });
    const rows = await ledgerRows(ctx, campaignId);
    const byStatus = (status: string) => rows.filter((row) => row.status === status).length;
    expect(midway.delivered).toBe(byStatus('sent'));
    expect(midway.failed).toBe(byStatus('failed'));
    expect(midway.outstanding).toBe(byStatus('pending') + byStatus('sending'));
    expect(midway.deferred).toBe(0);
    expect(midway.recipients).toBe(midway.sent + midway.outstanding);

    const rest = (await ledger.claim(run, 10)).ids;
    await writer.record(
      run,
      rest.map((subscriberId) => ({ subscriberId, kind: 'delivered' as const })),
    );
    expect(await ctx.get(CampaignsService).stats(tenant.principal, campaignId)).toMatchObject({
      recipients: 5,
      sent: 5,
      delivered: 4,
      outstanding: 0,
    });
    // The recipients' own counters say the same thing.
    const stats = [...(await statistics(ctx, ids)).values()];
    expect(stats.reduce((sum, s) => sum + s.statSent, 0)).toBe(5);
    expect(stats.reduce((sum, s) => sum + s.statDelivered, 0)).toBe(4);
    expect(stats.reduce((sum, s) => sum + s.statHardBounces, 0)).toBe(1);
  });

  it('counts opens and clicks on the subscriber, a repeat within the window once, and each person once on the campaign', async () => {
    const { accountId, campaignId, ids } = await delivered(3);
    const activity = ctx.get(RecipientActivityService);
    const [first, second] = ids;
    await activity.recordOpen({ accountId, subscriberId: first, campaignId }, PERSON);
    // The same message opened again at once: one open, counted nowhere twice.
    await activity.recordOpen({ accountId, subscriberId: first, campaignId }, PERSON);
    await activity.recordClick({ accountId, subscriberId: first, campaignId }, LINK, PERSON);
    await activity.recordOpen({ accountId, subscriberId: second, campaignId }, PERSON);

    expect(await counters(ctx, campaignId)).toMatchObject({ open_count: 2, click_count: 1 });
    const stats = await statistics(ctx, ids);
    expect(stats.get(first)).toMatchObject({ statOpens: 1, statClicks: 1 });
    expect(stats.get(first)!.lastOpenAt).toBeInstanceOf(Date);
    expect(stats.get(first)!.lastClickAt).toBeInstanceOf(Date);
    expect(stats.get(second)).toMatchObject({ statOpens: 1, statClicks: 0, lastClickAt: null });
    expect(stats.get(ids[2])).toMatchObject({ statOpens: 0, lastOpenAt: null });

    const firstRow = await ctx.prisma.campaignRecipient.findFirst({
      where: { campaignId, subscriberId: first },
      select: { openedAt: true, clickedAt: true },
    });
    expect(firstRow?.openedAt).toBeInstanceOf(Date);
    expect(firstRow?.clickedAt).toBeInstanceOf(Date);
  });

  it('counts nothing for a recipient erased since the message left', async () => {
    const { tenant, accountId, campaignId, ids } = await delivered(2);
    const { email } = await ctx.prisma.subscriber.findUniqueOrThrow({ where: { id: ids[0] } });
    await ctx.get(ErasureService).erase(tenant.principal, email);
    const before = await counters(ctx, campaignId);

    await ctx
      .get(RecipientActivityService)
      .recordOpen({ accountId, subscriberId: ids[0], campaignId }, PERSON);
    await ctx
      .get(RecipientActivityService)
      .recordClick({ accountId, subscriberId: ids[0], campaignId }, LINK, PERSON);
    expect(await counters(ctx, campaignId)).toEqual(before);
  });

  it('counts transactional mail on the subscriber who has the address, and only there', async () => {
    const tenant = await ctx.make.tenant();
    const other = await ctx.make.tenant('Other');
    const reader = await ctx.make.subscriber(tenant.accountId, { email: 'reader@example.com' });
    const namesake = await ctx.make.subscriber(other.accountId, { email: 'reader@example.com' });
    const statisticsService = ctx.get(SubscriberStatistics);
    const deliver = () => {
      // The worker's outcome write, with a send it recorded.
      const statement = new ComposedStatement();
      statement.with('recorded AS (SELECT 1)');
      statisticsService.addTransactionalDelivery(
        statement,
        tenant.accountId,
        'reader@example.com',
        relation('recorded'),
      );
      const { text, values } = statement.build('SELECT 1', { named: false });
      return runSql(ctx.prisma, text, values);
    };
    const bounce = (hard: boolean, email = 'reader@example.com') =>
      ctx.prisma.$transaction((tx) =>
        statisticsService.recordTransactionalBounce(tenant.accountId, email, hard, tx),
      );

    await deliver();
    await bounce(false);
    expect((await statistics(ctx, [reader.id])).get(reader.id)).toMatchObject({
      statSent: 2,
      statDelivered: 1,
      statSoftBounces: 1,
      statHardBounces: 0,
      status: 'subscribed',
    });
    await bounce(true);
    expect((await statistics(ctx, [reader.id])).get(reader.id)).toMatchObject({
      statSent: 3,
      statHardBounces: 1,
      status: 'bounced',
    });
    // Same address in another account: a different person, untouched.
    expect((await statistics(ctx, [namesake.id])).get(namesake.id)).toMatchObject({
      statSent: 0,
      status: 'subscribed',
    });
    // An address no subscriber has: nothing to count, no error, and no soft-bounce limit.
    await expect(bounce(false, 'stranger@example.com')).resolves.toBe(false);
  });
});
