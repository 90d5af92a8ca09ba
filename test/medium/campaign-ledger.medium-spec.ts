import { CampaignLedgerRepository } from '../../src/campaigns/campaign-ledger.repository';
import { CampaignOutcomeWriter } from '../../src/campaigns/campaign-outcome-writer';
import { CampaignsRepository } from '../../src/campaigns/campaigns.repository';
import type { Outcome } from '../../src/campaigns/recipient-outcome';
import {
  counters,
  ledgerRows,
  snapshotAll,
  startedCampaign,
  statistics,
} from '../support/campaign-ledger-fixtures';
import { Tenant } from '../support/factories';
import { TestContext } from '../support/test-context';
import { TestEnv } from '../support/test-env';

/**
 * The send ledger (campaign_recipients) on PostgreSQL, without workers or SMTP: the claim
 * that keeps two workers from sending to one row, and the outcome transaction that writes
 * ledger rows, subscriber statistics and campaign counters together, once.
 */
describe('the campaign send ledger', () => {
  let env: TestEnv;
  let ctx: TestContext;
  let ledger: CampaignLedgerRepository;
  let writer: CampaignOutcomeWriter;

  beforeAll(async () => {
    env = await TestEnv.create();
    ctx = await TestContext.start(env);
    ledger = ctx.get(CampaignLedgerRepository);
    writer = ctx.get(CampaignOutcomeWriter);
  });
  afterAll(async () => {
    await ctx?.close();
    await env?.dispose();
  });

  /**
   * A fresh account with `count` subscribers and a campaign to all of them, fanned out into
   * delivery batches of 10. Ids come back in ledger (keyset) order.
   */
  async function fannedOut(count: number) {
    const tenant: Tenant = await ctx.make.tenant();
    const people = await ctx.make.subscribers(tenant.accountId, count);
    const campaignId = await startedCampaign(ctx, tenant);
    await snapshotAll(ctx, tenant, campaignId, { deliverySize: 10 });
    const ids = people.map((p) => p.id).sort();
    return { tenant, accountId: tenant.accountId, campaignId, ids };
  }

  it('claims each pending row of a batch exactly once, however many claim at once', async () => {
    const { accountId, campaignId, ids } = await fannedOut(25);
    const claimed: string[] = [];
    // Rounds of eight concurrent claimers of three rows each, until the batch is drained.
    for (;;) {
      const round = await Promise.all(
        Array.from({ length: 8 }, () => ledger.claim(accountId, campaignId, 0, 3)),
      );
      if (round.every((ids) => ids.length === 0)) break;
      claimed.push(...round.flat());
    }
    expect(claimed).toHaveLength(10);
    expect([...claimed].sort()).toEqual(ids.slice(0, 10));

    const rows = await ledgerRows(ctx, campaignId);
    for (const row of rows.slice(0, 10)) {
      expect(row).toMatchObject({ batch: 0, status: 'sending', attempts: 1, claimed: true });
    }
    // The other batches are untouched.
    for (const row of rows.slice(10)) {
      expect(row).toMatchObject({ status: 'pending', attempts: 0, claimed: false });
    }
    expect(rows.slice(10).map((row) => row.batch)).toEqual([...Array(10).fill(1), 2, 2, 2, 2, 2]);
  });

  it('never claims a row the snapshot skipped', async () => {
    const tenant = await ctx.make.tenant();
    const people = await ctx.make.subscribers(tenant.accountId, 4);
    const [gone, bounced] = people.map((p) => p.id).sort();
    await ctx.prisma.subscriber.update({ where: { id: gone }, data: { status: 'unsubscribed' } });
    await ctx.prisma.subscriber.update({ where: { id: bounced }, data: { status: 'bounced' } });
    const campaignId = await startedCampaign(ctx, tenant);
    await snapshotAll(ctx, tenant, campaignId);

    const claimed = await ledger.claim(tenant.accountId, campaignId, 0, 10);
    expect(claimed.sort()).toEqual(
      people
        .map((p) => p.id)
        .filter((id) => id !== gone && id !== bounced)
        .sort(),
    );
    const rows = await ledgerRows(ctx, campaignId);
    expect(rows.find((row) => row.subscriber_id === gone)).toMatchObject({
      status: 'skipped',
      skip_reason: 'unsubscribed',
      claimed: false,
    });
    expect(rows.find((row) => row.subscriber_id === bounced)).toMatchObject({
      status: 'skipped',
      skip_reason: 'bounced',
      claimed: false,
    });
  });

  it('writes outcomes, statistics and counters together, and a repeated outcome counts once', async () => {
    const { accountId, campaignId, ids } = await fannedOut(6);
    const [a, b, c, d, e, f] = ids;
    expect((await ledger.claim(accountId, campaignId, 0, 10)).sort()).toEqual(ids);
    const outcomes: Outcome[] = [
      { subscriberId: a, kind: 'delivered' },
      { subscriberId: b, kind: 'delivered' },
      { subscriberId: c, kind: 'failed', smtpCode: 550, hardBounce: true },
      { subscriberId: d, kind: 'failed', smtpCode: 452, hardBounce: false },
      { subscriberId: e, kind: 'skipped', reason: 'unsubscribed' },
      { subscriberId: f, kind: 'deferred', smtpCode: 421 },
    ];
    await writer.record(accountId, campaignId, outcomes);

    const rows = new Map(
      (await ledgerRows(ctx, campaignId)).map((row) => [row.subscriber_id, row]),
    );
    expect(rows.get(a)).toMatchObject({ status: 'sent', smtp_code: null, sent: true });
    expect(rows.get(b)).toMatchObject({ status: 'sent', sent: true });
    expect(rows.get(c)).toMatchObject({ status: 'failed', smtp_code: 550, sent: true });
    expect(rows.get(d)).toMatchObject({ status: 'failed', smtp_code: 452, sent: true });
    expect(rows.get(e)).toMatchObject({
      status: 'skipped',
      skip_reason: 'unsubscribed',
      sent: false,
    });
    // A deferral keeps its claim (the attempt is still running) and notes the server's code.
    expect(rows.get(f)).toMatchObject({ status: 'sending', smtp_code: 421, sent: false });

    const afterFirst = await counters(ctx, campaignId);
    expect(afterFirst).toMatchObject({
      status: 'sending',
      recipient_count: 5, // six snapshotted, one skipped at delivery
      delivered_count: 2,
      failed_count: 2,
      bounce_count: 1,
      skipped_unsubscribed_count: 1,
      skipped_erased_count: 0,
      skipped_bounced_count: 0,
    });
    const stats = await statistics(ctx, ids);
    expect(stats.get(a)).toMatchObject({ statSent: 1, statDelivered: 1, statHardBounces: 0 });
    expect(stats.get(a)!.lastSentAt).toBeInstanceOf(Date);
    expect(stats.get(c)).toMatchObject({
      statSent: 1,
      statDelivered: 0,
      statHardBounces: 1,
      status: 'bounced',
    });
    expect(stats.get(d)).toMatchObject({
      statSent: 1,
      statDelivered: 0,
      statSoftBounces: 1,
      status: 'subscribed',
    });
    for (const untouched of [e, f]) {
      expect(stats.get(untouched)).toMatchObject({ statSent: 0, lastSentAt: null });
    }

    // The same chunk reported again (a duplicated job, a retried write): nothing moves.
    const ledgerBefore = await ledgerRows(ctx, campaignId);
    const statsBefore = await statistics(ctx, ids);
    await writer.record(accountId, campaignId, outcomes);
    expect(await ledgerRows(ctx, campaignId)).toEqual(ledgerBefore);
    expect(await counters(ctx, campaignId)).toEqual(afterFirst);
    expect(await statistics(ctx, ids)).toEqual(statsBefore);

    // The deferred recipient goes back to pending for the job's retry, is claimed again and
    // delivered; only then is the campaign finished.
    const campaigns = ctx.get(CampaignsRepository);
    expect(await campaigns.completeIfFinished(accountId, campaignId)).toBe(false);
    await ledger.releaseDeferred(accountId, campaignId, [f]);
    expect(await ledger.claim(accountId, campaignId, 0, 10)).toEqual([f]);
    await writer.record(accountId, campaignId, [{ subscriberId: f, kind: 'delivered' }]);
    expect((await ledgerRows(ctx, campaignId)).find((r) => r.subscriber_id === f)).toMatchObject({
      status: 'sent',
      attempts: 2,
    });
    expect(await counters(ctx, campaignId)).toMatchObject({
      delivered_count: 3,
      recipient_count: 5,
    });
    expect(await campaigns.completeIfFinished(accountId, campaignId)).toBe(true);
    expect(await campaigns.completeIfFinished(accountId, campaignId)).toBe(false);
    expect((await counters(ctx, campaignId)).status).toBe('sent');
  });

  it('ignores an outcome for a row nobody claimed', async () => {
    const { accountId, campaignId, ids } = await fannedOut(2);
    const before = await counters(ctx, campaignId);
    await writer.record(accountId, campaignId, [
      { subscriberId: ids[0], kind: 'delivered' },
      { subscriberId: ids[1], kind: 'failed', smtpCode: 550, hardBounce: true },
    ]);
    expect((await ledgerRows(ctx, campaignId)).map((row) => row.status)).toEqual([
      'pending',
      'pending',
    ]);
    expect(await counters(ctx, campaignId)).toEqual(before);
    const stats = await statistics(ctx, ids);
    expect([...stats.values()].map((s) => [s.statSent, s.status])).toEqual([
      [0, 'subscribed'],
      [0, 'subscribed'],
    ]);
  });

  it('hands back the claims of an attempt that died, to be sent again', async () => {
    const { accountId, campaignId, ids } = await fannedOut(12);
    // A claim takes the lowest ids first (rows come back in no particular order).
    const claimed = await ledger.claim(accountId, campaignId, 0, 4);
    expect(claimed.sort()).toEqual(ids.slice(0, 4));
    // Batch 1 is another job's: releasing batch 0 leaves its claim alone.
    expect(await ledger.claim(accountId, campaignId, 1, 1)).toEqual([ids[10]]);

    expect(await ledger.releaseClaims(accountId, campaignId, 0)).toBe(4);
    const rows = await ledgerRows(ctx, campaignId);
    expect(rows.slice(0, 4).map((row) => [row.status, row.attempts])).toEqual(
      Array(4).fill(['pending', 1]),
    );
    expect(rows[10]).toMatchObject({ status: 'sending', batch: 1 });

    // The retry claims them again, counting the attempt.
    expect((await ledger.claim(accountId, campaignId, 0, 10)).sort()).toEqual(ids.slice(0, 10));
    expect((await ledgerRows(ctx, campaignId))[0]).toMatchObject({ attempts: 2 });
    expect(await ledger.outstanding(accountId, campaignId)).toBe(12);
  });

  it('keeps one account out of another account’s ledger', async () => {
    const { campaignId } = await fannedOut(3);
    const stranger = await ctx.make.tenant('Stranger');
    expect(await ledger.claim(stranger.accountId, campaignId, 0, 10)).toEqual([]);
    expect(await ledger.outstanding(stranger.accountId, campaignId)).toBe(0);
    expect((await ledgerRows(ctx, campaignId)).every((row) => row.status === 'pending')).toBe(true);
  });
});
