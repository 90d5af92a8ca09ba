import { CampaignsRepository } from '../../src/campaigns/core/campaigns.repository';
import { newId } from '../../src/platform/crypto/ids';
import { AccountId, parseAccountId } from '../../src/platform/database/account-id';
import { TestContext } from '../support/test-context';
import { startRunBeside } from '../support/campaign-ledger-fixtures';
import { TestEnv } from '../support/test-env';
import { latch } from '../support/wait-for';

/**
 * Every statement of campaigns.sql.ts through CampaignsRepository on PostgreSQL: each state
 * change happens only from the states it names (so of several callers one wins), counters add
 * up, the reputation guard pauses on its limits and a resume moves its baseline, and the
 * queries across accounts find every account's campaigns while the others stay in theirs.
 */
describe('campaigns.sql', () => {
  let env: TestEnv;
  let ctx: TestContext;
  let campaigns: CampaignsRepository;
  let accountId: AccountId;
  let otherId: AccountId;

  beforeAll(async () => {
    env = await TestEnv.create();
    ctx = await TestContext.start(env);
    campaigns = ctx.get(CampaignsRepository);
    accountId = parseAccountId(await ctx.make.account('Campaigns'));
    otherId = parseAccountId(await ctx.make.account('Other campaigns'));
  });
  afterAll(async () => {
    await ctx?.close();
    await env?.dispose();
  });

  const row = (id: string) => ctx.prisma.campaign.findUniqueOrThrow({ where: { id } });
  const sending = (owner: AccountId = accountId, extra: Record<string, unknown> = {}) =>
    ctx.make.campaign(owner, { status: 'sending', startedAt: new Date(), ...extra });

  /** A ledger row of the campaign in `status` (a subscriber made for it). */
  async function recipient(campaignId: string, status: string, nextAttemptAt?: Date) {
    const subscriber = await ctx.make.subscriber(accountId, { email: `${newId()}@example.test` });
    await ctx.prisma.$executeRaw`
      INSERT INTO campaign_recipients
             (campaign_id, subscriber_id, account_id, batch, status, next_attempt_at)
      VALUES (${campaignId}::uuid, ${subscriber.id}::uuid, ${accountId}::uuid, 0,
              ${status}::recipient_status, ${nextAttemptAt ?? null}::timestamptz)`;
  }

  /** A delivery run of the campaign, with its lease ending `leaseSeconds` from now. */
  async function run(
    campaignId: string,
    leaseSeconds: number,
    counts: { delivered?: number; hardBounces?: number } = {},
  ) {
    await ctx.prisma.$executeRaw`
      INSERT INTO campaign_delivery_runs
             (id, campaign_id, account_id, batch, lease_until, delivered, hard_bounces)
      VALUES (${newId()}::uuid, ${campaignId}::uuid, ${accountId}::uuid, 0,
              now() + make_interval(secs => ${leaseSeconds}), ${counts.delivered ?? 0},
              ${counts.hardBounces ?? 0})`;
  }

  it('starts a draft once, freezing its template’s content; never a sent one', async () => {
    const template = await ctx.make.template(accountId, { html: '<p>T</p>', text: 'T' });
    const draft = await ctx.make.campaign(accountId, { templateId: template.id });
    expect(await campaigns.startSending(otherId, draft.id)).toBe(false);
    expect(await campaigns.startSending(accountId, draft.id)).toBe(true);
    expect(await campaigns.startSending(accountId, draft.id)).toBe(false);
    expect(await row(draft.id)).toMatchObject({ status: 'sending', html: '<p>T</p>', text: 'T' });
    const sent = await ctx.make.campaign(accountId, { status: 'sent' });
    expect(await campaigns.startSending(accountId, sent.id)).toBe(false);
  });

  it('lists due scheduled campaigns across accounts and starts only those whose time has come', async () => {
    const past = new Date(Date.now() - 60_000);
    const due = await ctx.make.campaign(accountId, { status: 'scheduled', sendAt: past });
    const theirs = await ctx.make.campaign(otherId, { status: 'scheduled', sendAt: past });
    const later = await ctx.make.campaign(accountId, {
      status: 'scheduled',
      sendAt: new Date(Date.now() + 3_600_000),
    });
    const listed = await campaigns.dueCampaignsAcrossAccounts(100);
    expect(listed).toEqual(
      expect.arrayContaining([
        { accountId, id: due.id, fromAddress: 'news@acme.test' },
        { accountId: otherId, id: theirs.id, fromAddress: 'news@acme.test' },
      ]),
    );
    expect(listed.map((c) => c.id)).not.toContain(later.id);
    expect(await campaigns.dueCampaignsAcrossAccounts(1)).toHaveLength(1);

    expect(await campaigns.startScheduled(accountId, later.id)).toBe(false);
    expect(await campaigns.startScheduled(accountId, due.id)).toBe(true);
    expect(await campaigns.startScheduled(accountId, due.id)).toBe(false);
    expect((await row(due.id)).status).toBe('sending');
  });

  it('completes a sending campaign only once its fan-out is done and nothing is unfinished', async () => {
    const campaign = await sending();
    await recipient(campaign.id, 'sent');
    await recipient(campaign.id, 'deferred');
    const complete = () =>
      ctx.prisma.$transaction((tx) => campaigns.completeIfFinished(accountId, campaign.id, tx));
    expect(await complete()).toBe(false); // the fan-out is not done
    await ctx.prisma.campaign.update({
      where: { id: campaign.id },
      data: { fanoutDoneAt: new Date() },
    });
    expect(await complete()).toBe(false); // a deferred recipient is unfinished
    await ctx.prisma.$executeRaw`
      UPDATE campaign_recipients SET status = 'failed' WHERE campaign_id = ${campaign.id}::uuid`;
    expect(await complete()).toBe(true);
    expect(await complete()).toBe(false);
    expect(await row(campaign.id)).toMatchObject({ status: 'sent', finishedAt: expect.any(Date) });
  });

  it('finds stalled and sending campaigns across accounts, sparing live runs and waiting ones', async () => {
    const longAgo = new Date(Date.now() - 3_600_000);
    const stalled = await sending(accountId, { progressAt: longAgo });
    await recipient(stalled.id, 'pending');
    const theirs = await sending(otherId, { progressAt: longAgo });
    const busy = await sending(accountId, { progressAt: longAgo });
    await run(busy.id, 60);
    const fresh = await sending(accountId, { progressAt: new Date() });
    const waiting = await sending(accountId, { progressAt: longAgo, fanoutDoneAt: longAgo });
    await recipient(waiting.id, 'deferred', new Date(Date.now() + 3_600_000));

    const found = (await campaigns.stalledCampaignsAcrossAccounts(600, 100)).map((c) => c.id);
    expect(found).toEqual(expect.arrayContaining([stalled.id, theirs.id]));
    for (const spared of [busy.id, fresh.id, waiting.id]) expect(found).not.toContain(spared);

    const all = await campaigns.sendingCampaignsAcrossAccounts(1000);
    expect(all).toEqual(
      expect.arrayContaining([
        { accountId, id: stalled.id },
        { accountId: otherId, id: theirs.id },
        { accountId, id: busy.id },
      ]),
    );
    expect(await campaigns.sendingCampaignsAcrossAccounts(2)).toHaveLength(2);
  });

  it('locks a sending campaign’s fan-out checkpoint and advances it, counting what went in', async () => {
    const campaign = await sending();
    const lastId = newId();
    await ctx.prisma.$transaction(async (tx) => {
      expect(await campaigns.lockFanoutCheckpoint(accountId, campaign.id, tx)).toEqual({
        afterId: null,
        batches: 0,
        done: false,
        segmentId: null,
        createdAt: campaign.createdAt,
      });
      await campaigns.advanceFanout(
        accountId,
        campaign.id,
        {
          lastId,
          batches: 3,
          done: true,
          pending: 5,
          unsubscribed: 1,
          bounced: 2,
          complained: 3,
          suppressed: 4,
          other: 6,
          erased: 7,
        },
        tx,
      );
    });
    await ctx.prisma.$transaction(async (tx) => {
      expect(await campaigns.lockFanoutCheckpoint(accountId, campaign.id, tx)).toMatchObject({
        afterId: lastId,
        batches: 3,
        done: true,
      });
      expect(await campaigns.lockFanoutCheckpoint(otherId, campaign.id, tx)).toBeUndefined();
    });
    expect(await row(campaign.id)).toMatchObject({
      recipientCount: 5,
      skippedUnsubscribedCount: 1,
      skippedBouncedCount: 2,
      skippedComplainedCount: 3,
      skippedSuppressedCount: 4,
      skippedOtherCount: 6,
      skippedErasedCount: 7,
    });
    const draft = await ctx.make.campaign(accountId);
    await ctx.prisma.$transaction(async (tx) => {
      expect(await campaigns.lockFanoutCheckpoint(accountId, draft.id, tx)).toBeUndefined();
    });
  });

  it('moves erased recipients from recipients to skipped, per campaign, in the account only', async () => {
    const first = await sending(accountId, { recipientCount: 10 });
    const second = await sending(accountId, { recipientCount: 4 });
    const theirs = await sending(otherId, { recipientCount: 4 });
    await ctx.prisma.$transaction((tx) =>
      campaigns.countErasedSkips(accountId, [second.id, first.id, theirs.id], [1, 2, 3], tx),
    );
    expect(await row(first.id)).toMatchObject({ recipientCount: 8, skippedErasedCount: 2 });
    expect(await row(second.id)).toMatchObject({ recipientCount: 3, skippedErasedCount: 1 });
    expect(await row(theirs.id)).toMatchObject({ recipientCount: 4, skippedErasedCount: 0 });
  });

  it('lets a delivery run of the campaign start while an erasure’s counts are uncommitted', async () => {
    const campaign = await sending(accountId, { recipientCount: 3 });
    const commit = latch();
    const countsWritten = latch();
    const erasing = ctx.prisma.$transaction(
      async (tx) => {
        await campaigns.countErasedSkips(accountId, [campaign.id], [1], tx);
        countsWritten.open();
        await commit.opened;
      },
      { timeout: 30_000 },
    );
    await countsWritten.opened;

    // The run's row refers to the campaign (a key-share lock on its row), which the erasure's
    // lock on the row must not refuse: a run waits for no erasure.
    const { outcome, run } = await startRunBeside(
      ctx,
      env,
      accountId,
      campaign.id,
      'waiting for the erasure to commit',
    );
    commit.open();
    await Promise.all([run, erasing]);
    expect(outcome).toBe('settled');
    expect(await row(campaign.id)).toMatchObject({ recipientCount: 2, skippedErasedCount: 1 });
  });

  it('counts first opens and clicks, and each kind of feedback on its own counter', async () => {
    const campaign = await sending();
    await ctx.prisma.$transaction(async (tx) => {
      await campaigns.countFirstActivity(accountId, campaign.id, 'open', tx);
      await campaigns.countFirstActivity(accountId, campaign.id, 'open', tx);
      await campaigns.countFirstActivity(accountId, campaign.id, 'click', tx);
      await campaigns.countFirstActivity(otherId, campaign.id, 'click', tx);
      await campaigns.countFeedback(accountId, campaign.id, 'hard_bounce', tx);
      await campaigns.countFeedback(accountId, campaign.id, 'soft_bounce', tx);
      await campaigns.countFeedback(accountId, campaign.id, 'soft_bounce', tx);
      await campaigns.countFeedback(accountId, campaign.id, 'complaint', tx);
      await campaigns.countFeedback(accountId, campaign.id, 'unsubscribe', tx);
      await campaigns.countFeedback(otherId, campaign.id, 'complaint', tx);
    });
    expect(await row(campaign.id)).toMatchObject({
      openCount: 2,
      clickCount: 1,
      bounceCount: 1,
      softBounceCount: 2,
      complaintCount: 1,
      unsubscribeCount: 1,
    });
  });

  it('cancels an unfinished campaign once and counts what it left unsent; a sent one stays', async () => {
    const campaign = await sending();
    const cancel = (id: string) =>
      ctx.prisma.$transaction((tx) => campaigns.markCancelled(accountId, id, tx));
    expect(await cancel(campaign.id)).toBe(true);
    expect(await cancel(campaign.id)).toBe(false);
    await ctx.prisma.$transaction(async (tx) => {
      await campaigns.countCancelled(accountId, campaign.id, 4, tx);
      await campaigns.countCancelled(accountId, campaign.id, 0, tx);
      await campaigns.countCancelled(otherId, campaign.id, 9, tx);
    });
    expect(await row(campaign.id)).toMatchObject({ status: 'cancelled', cancelledCount: 4 });
    const sent = await ctx.make.campaign(accountId, { status: 'sent' });
    expect(await cancel(sent.id)).toBe(false);
  });

  it('pauses past the complaint or bounce limit once enough were delivered, and resumes from a new baseline', async () => {
    const limits = { complaintRate: 0.1, bounceRate: 0.2, minDelivered: 10 };
    const campaign = await sending(accountId, { deliveredCount: 5, complaintCount: 2 });
    // 5 delivered: below minDelivered, whatever the complaints.
    expect(await campaigns.pauseIfPastLimits(accountId, campaign.id, limits)).toBeUndefined();
    // Runs not folded yet count too: 5 + 15 delivered, 2 complaints (10 %), 4 bounces (20 %).
    await run(campaign.id, 60, { delivered: 15, hardBounces: 4 });
    expect(await campaigns.pauseIfPastLimits(accountId, campaign.id, limits)).toBeUndefined();
    await ctx.prisma.campaign.update({ where: { id: campaign.id }, data: { complaintCount: 3 } });
    expect(await campaigns.pauseIfPastLimits(otherId, campaign.id, limits)).toBeUndefined();
    expect(await campaigns.pauseIfPastLimits(accountId, campaign.id, limits)).toEqual({
      id: campaign.id,
      name: campaign.name,
      status: 'paused',
      paused_reason: 'complaint_rate',
      delivered: 20,
      bounces: 4,
      complaints: 3,
      automation_id: null,
    });
    expect(await campaigns.pauseIfPastLimits(accountId, campaign.id, limits)).toBeUndefined();

    expect(await campaigns.resume(otherId, campaign.id)).toBeNull();
    const resumed = await campaigns.resume(accountId, campaign.id);
    expect(resumed).toMatchObject({
      status: 'sending',
      pausedReason: null,
      guardSinceDelivered: 20,
      guardSinceBounces: 4,
      guardSinceComplaints: 3,
    });
    expect(await campaigns.resume(accountId, campaign.id)).toBeNull();
    // Judged on what comes after the resume: 10 more delivered, 3 of them hard bounces (30 %).
    await run(campaign.id, 60, { delivered: 10, hardBounces: 3 });
    expect(await campaigns.pauseIfPastLimits(accountId, campaign.id, limits)).toMatchObject({
      paused_reason: 'bounce_rate',
      delivered: 10,
      bounces: 3,
      complaints: 0,
    });
  });
});
