import { CampaignCompletion } from '../../src/campaigns/core/campaign-completion';
import {
  CampaignDeliveryRunsRepository,
  RunIdentity,
} from '../../src/campaigns/ledger/campaign-delivery-runs.repository';
import { CampaignLedgerRepository } from '../../src/campaigns/ledger/campaign-ledger.repository';
import { CampaignOutcomeWriter } from '../../src/campaigns/delivery/campaign-outcome-writer';
import type { AccountId } from '../../src/platform/database/account-id';
import type { Outcome } from '../../src/campaigns/ledger/recipient-outcome';
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
 * The send ledger (campaign_recipients) on PostgreSQL, without workers or SMTP: the fenced
 * claim that keeps two delivery runs from sending to one row (and hands a dead run's rows to
 * the next), the outcome transaction that writes ledger rows, subscriber statistics and the
 * run's counters together, once, and deferrals over the retry horizon.
 */
describe('the campaign send ledger', () => {
  let env: TestEnv;
  let ctx: TestContext;
  let ledger: CampaignLedgerRepository;
  let writer: CampaignOutcomeWriter;
  let runs: CampaignDeliveryRunsRepository;

  beforeAll(async () => {
    env = await TestEnv.create();
    ctx = await TestContext.start(env);
    ledger = ctx.get(CampaignLedgerRepository);
    writer = ctx.get(CampaignOutcomeWriter);
    runs = ctx.get(CampaignDeliveryRunsRepository);
  });

  const startRun = (accountId: AccountId, campaignId: string, batch = 0) =>
    runs.start(accountId, campaignId, batch, 30);
  const claimIds = async (run: RunIdentity, limit: number) =>
    (await ledger.claim(run, limit)).ids.sort();
  /** What a worker that died or froze leaves behind: a run whose lease has run out. */
  const expire = (run: RunIdentity) =>
    ctx.prisma.$executeRaw`UPDATE campaign_delivery_runs
                              SET lease_until = now() - interval '1 second'
                            WHERE id = ${run.id}::uuid`;
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

  it('claims each pending row of a batch exactly once, however many runs claim at once', async () => {
    const { accountId, campaignId, ids } = await fannedOut(25);
    const claimers = await Promise.all(
      Array.from({ length: 8 }, () => startRun(accountId, campaignId)),
    );
    const claimed: string[] = [];
    // Rounds of eight concurrent runs claiming three rows each, until the batch is drained.
    for (;;) {
      const round = await Promise.all(claimers.map((run) => claimIds(run, 3)));
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

    const claimed = await claimIds(await startRun(tenant.accountId, campaignId), 10);
    expect(claimed).toEqual(
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
    const run = await startRun(accountId, campaignId);
    expect(await claimIds(run, 10)).toEqual(ids);
    const outcomes: Outcome[] = [
      { subscriberId: a, kind: 'delivered' },
      { subscriberId: b, kind: 'delivered' },
      { subscriberId: c, kind: 'failed', smtpCode: 550, hardBounce: true },
      { subscriberId: d, kind: 'failed', smtpCode: 452, hardBounce: false },
      { subscriberId: e, kind: 'skipped', reason: 'unsubscribed' },
      { subscriberId: f, kind: 'deferred', smtpCode: 421 },
    ];
    await writer.record(run, outcomes);

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
    // A deferral waits for its next try, with the server's code.
    expect(rows.get(f)).toMatchObject({ status: 'deferred', smtp_code: 421, sent: false });

    // The run holds its counts until it ends; what clients read includes them already.
    const expected = {
      recipient_count: 5, // six snapshotted, one skipped at delivery
      delivered_count: 2,
      failed_count: 2,
      bounce_count: 1,
      skipped_unsubscribed_count: 1,
      skipped_erased_count: 0,
      skipped_bounced_count: 0,
    };
    const current = (await runs.current(accountId, [campaignId], true)).get(campaignId)!;
    expect(current).toMatchObject({
      outstanding: 1,
      deferred: 1,
      counters: { recipientCount: 5, deliveredCount: 2, failedCount: 2, bounceCount: 1 },
    });
    await runs.end(run);
    const afterFirst = await counters(ctx, campaignId);
    expect(afterFirst).toMatchObject({ status: 'sending', ...expected });
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
    await writer.record(run, outcomes);
    await runs.end(run);
    expect(await ledgerRows(ctx, campaignId)).toEqual(ledgerBefore);
    expect(await counters(ctx, campaignId)).toEqual(afterFirst);
    expect(await statistics(ctx, ids)).toEqual(statsBefore);

    // The deferred recipient is claimed again once its try is due, and delivered; only then
    // is the campaign finished.
    const completion = ctx.get(CampaignCompletion);
    expect(await completion.completeIfFinished(accountId, campaignId)).toBe(false);
    const retry = await startRun(accountId, campaignId);
    expect(await claimIds(retry, 10)).toEqual([]);
    await ctx.prisma.$executeRaw`UPDATE campaign_recipients SET next_attempt_at = now()
                                  WHERE campaign_id = ${campaignId}::uuid`;
    expect(await claimIds(retry, 10)).toEqual([f]);
    await writer.record(retry, [{ subscriberId: f, kind: 'delivered' }]);
    expect((await ledgerRows(ctx, campaignId)).find((r) => r.subscriber_id === f)).toMatchObject({
      status: 'sent',
      attempts: 2,
    });
    // Completion folds the counts of runs that never ended (a worker that died) as well.
    expect(await completion.completeIfFinished(accountId, campaignId)).toBe(true);
    expect(await completion.completeIfFinished(accountId, campaignId)).toBe(false);
    expect(await counters(ctx, campaignId)).toMatchObject({
      status: 'sent',
      delivered_count: 3,
      recipient_count: 5,
    });
  });

  it('ignores an outcome for a row the run does not hold', async () => {
    const { accountId, campaignId, ids } = await fannedOut(2);
    const before = await counters(ctx, campaignId);
    const run = await startRun(accountId, campaignId);
    await writer.record(run, [
      { subscriberId: ids[0], kind: 'delivered' },
      { subscriberId: ids[1], kind: 'failed', smtpCode: 550, hardBounce: true },
    ]);
    await runs.end(run);
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

  it('leaves a live run’s claims alone and hands an expired run’s to the next one', async () => {
    const { accountId, campaignId, ids } = await fannedOut(12);
    const frozen = await startRun(accountId, campaignId);
    expect(await claimIds(frozen, 4)).toEqual(ids.slice(0, 4));
    // Batch 1 is another job's run.
    const other = await startRun(accountId, campaignId, 1);
    expect(await claimIds(other, 1)).toEqual([ids[10]]);

    // While the lease holds, a second run of the batch gets only the pending rows.
    const next = await startRun(accountId, campaignId);
    expect(await claimIds(next, 3)).toEqual(ids.slice(4, 7));
    // Once it has run out, the rows go to the next run, counted as another attempt.
    await expire(frozen);
    const taken = await ledger.claim(next, 10);
    expect(taken.takenOver).toBe(4);
    expect(taken.ids.sort()).toEqual([...ids.slice(0, 4), ...ids.slice(7, 10)].sort());
    expect((await ledgerRows(ctx, campaignId))[0]).toMatchObject({ attempts: 2 });
    // Batch 1's live claim was not touched.
    expect((await ledgerRows(ctx, campaignId))[10]).toMatchObject({
      status: 'sending',
      attempts: 1,
    });

    // The expired run comes back (SIGCONT) and reports a 250 it got: the row is not its any
    // more, so nothing is written or counted; and it can neither renew nor claim.
    await writer.record(frozen, [{ subscriberId: ids[0], kind: 'delivered' }]);
    expect((await ledgerRows(ctx, campaignId))[0]).toMatchObject({ status: 'sending' });
    expect(await runs.renew(frozen, 30)).toBe(false);
    await ctx.prisma.$executeRaw`UPDATE campaign_recipients SET status = 'pending'
                                  WHERE campaign_id = ${campaignId}::uuid AND batch = 0
                                    AND subscriber_id = ${ids[0]}::uuid`;
    expect(await claimIds(frozen, 10)).toEqual([]);
    await runs.foldExpired(accountId, campaignId, 0);
    expect(await counters(ctx, campaignId)).toMatchObject({ delivered_count: 0 });
  });

  it('defers a temporary refusal with a growing wait, and fails it past the horizon', async () => {
    const { accountId, campaignId, ids } = await fannedOut(2);
    const [early, late] = ids;
    const run = await startRun(accountId, campaignId);
    await claimIds(run, 10);
    // `late` was first refused two days ago (its earlier attempts): past the one-day horizon.
    await ctx.prisma.$executeRaw`UPDATE campaign_recipients
                                    SET deferred_since = now() - interval '2 days', attempts = 4
                                  WHERE campaign_id = ${campaignId}::uuid
                                    AND subscriber_id = ${late}::uuid`;
    await writer.record(run, [
      { subscriberId: early, kind: 'deferred', smtpCode: 451 },
      { subscriberId: late, kind: 'deferred', smtpCode: 421 },
    ]);
    await runs.end(run);
    const [row] = await ctx.prisma.$queryRaw<{ wait: number; status: string }[]>`
      SELECT extract(epoch FROM next_attempt_at - deferred_since)::float8 AS wait, status::text
        FROM campaign_recipients
       WHERE campaign_id = ${campaignId}::uuid AND subscriber_id = ${early}::uuid`;
    // SMTP_RETRY_FIRST_SECONDS (60 by default) after the first refusal.
    expect(row.status).toBe('deferred');
    expect(row.wait).toBeCloseTo(60, 0);
    expect((await ledgerRows(ctx, campaignId))[ids.indexOf(late)]).toMatchObject({
      status: 'failed',
      smtp_code: 421,
      sent: true,
    });
    expect(await counters(ctx, campaignId)).toMatchObject({ failed_count: 1, delivered_count: 0 });
    expect(await ledger.nextWake(accountId, campaignId, 0)).toBeInstanceOf(Date);
  });

  it('keeps one account out of another account’s ledger', async () => {
    const { campaignId } = await fannedOut(3);
    const stranger = await ctx.make.tenant('Stranger');
    const run = await startRun(stranger.accountId, campaignId);
    expect(await claimIds(run, 10)).toEqual([]);
    expect(await ledger.nextWake(stranger.accountId, campaignId, 0)).toBeUndefined();
    expect((await runs.current(stranger.accountId, [campaignId], true)).size).toBe(0);
    expect((await ledgerRows(ctx, campaignId)).every((row) => row.status === 'pending')).toBe(true);
  });
});
