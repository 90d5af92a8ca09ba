import { newId } from '../../src/platform/crypto/ids';
import { ComposedStatement, relation } from '../../src/platform/database/composed-statement';
import { AccountId, parseAccountId } from '../../src/platform/database/account-id';
import { PgPool } from '../../src/platform/database/pg-pool';
import { StatsRepository } from '../../src/stats/stats.repository';
import { TestContext } from '../support/test-context';
import { TestEnv } from '../support/test-env';

/**
 * Every statement of stats.sql.ts through StatsRepository on PostgreSQL: counters add up
 * (never overwrite) across writes and the day's shards, a person's repeated click on a link
 * counts once as unique and a machine's not at all, the last click credits its campaign only
 * within its window, and erasure drops the links that carry the address. Each account sees
 * only its own numbers.
 */
describe('stats.sql', () => {
  let env: TestEnv;
  let ctx: TestContext;
  let stats: StatsRepository;
  let pool: PgPool;
  let accountId: AccountId;
  let otherId: AccountId;

  beforeAll(async () => {
    env = await TestEnv.create();
    ctx = await TestContext.start(env);
    stats = ctx.get(StatsRepository);
    pool = ctx.get(PgPool);
    accountId = parseAccountId(await ctx.make.account('Stats'));
    otherId = parseAccountId(await ctx.make.account('Other stats'));
  });
  afterAll(async () => {
    await ctx?.close();
    await env?.dispose();
  });

  const day = (rows: { day: string }[], which: string) => rows.find((row) => row.day === which);

  it('adds to the days’ counters, write after write, and reads them back per day', async () => {
    await stats.countDays(
      ctx.prisma,
      accountId,
      new Map([
        ['2026-03-02', { sent: 2, opens: 1 }],
        ['2026-03-01', { sent: 1, revenue_cents: 500 }],
      ]),
    );
    await stats.countDays(ctx.prisma, accountId, new Map([['2026-03-02', { sent: 3 }]]));
    await stats.countDays(ctx.prisma, otherId, new Map([['2026-03-02', { sent: 100 }]]));

    const rows = await stats.days(accountId, '2026-03-01', '2026-03-03');
    expect(rows.map((row) => row.day)).toEqual(['2026-03-01', '2026-03-02']);
    expect(day(rows, '2026-03-01')).toMatchObject({ sent: 1, opens: 0, revenue_cents: 500 });
    expect(day(rows, '2026-03-02')).toMatchObject({ sent: 5, opens: 1, revenue_cents: 0 });
    expect(await stats.days(accountId, '2026-03-03', '2026-03-31')).toEqual([]);
  });

  it('writes another statement’s item alongside the days in one statement', async () => {
    await stats.countDays(
      ctx.prisma,
      accountId,
      new Map([['2026-04-01', { delivered: 1 }]]),
      (first) => ({
        withItem: `noted AS (SELECT $${first}::int AS n)`,
        params: [1],
      }),
    );
    expect(
      day(await stats.days(accountId, '2026-04-01', '2026-04-01'), '2026-04-01'),
    ).toMatchObject({ delivered: 1 });
  });

  it('counts a composed write’s sends on the day: sent, delivered and bounces', async () => {
    const statement = new ComposedStatement();
    statement.with(`sends AS (
      SELECT * FROM unnest(${statement.param([true, false, false])}::bool[],
                           ${statement.param([false, true, false])}::bool[],
                           ${statement.param([false, false, true])}::bool[])
        AS s(delivered, hard_bounce, soft_bounce))`);
    stats.addSendCounts(
      statement,
      accountId,
      '2026-05-01',
      relation<'delivered' | 'hard_bounce' | 'soft_bounce'>('sends'),
    );
    const { text, values } = statement.build('SELECT 1');
    await pool.query(text, values);
    // An empty relation writes nothing (not even a row of zeros).
    const empty = new ComposedStatement();
    empty.with(`sends AS (SELECT true AS delivered, false AS hard_bounce, false AS soft_bounce
                           WHERE false)`);
    stats.addSendCounts(empty, accountId, '2026-05-02', relation('sends'));
    const built = empty.build('SELECT 1');
    await pool.query(built.text, built.values);

    const rows = await stats.days(accountId, '2026-05-01', '2026-05-02');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ sent: 3, delivered: 1, hard_bounces: 1, soft_bounces: 1 });
  });

  it('adds to a campaign’s engagement counters and reads them back', async () => {
    const campaign = await ctx.make.campaign(accountId);
    await stats.countCampaign(ctx.prisma, accountId, campaign.id, { opens: 2, revenueCents: 150 });
    await stats.countCampaign(ctx.prisma, accountId, campaign.id, {
      opens: 1,
      clicks: 4,
      machineOpens: 5,
      machineClicks: 6,
      conversions: 1,
      revenueCents: 50,
    });
    expect(await stats.campaignEngagement(accountId, campaign.id, 10)).toEqual({
      opens: 3,
      clicks: 4,
      machineOpens: 5,
      machineClicks: 6,
      conversions: 1,
      revenueCents: 200,
      links: [],
    });
    // Another account asking for it reads nothing.
    expect(await stats.campaignEngagement(otherId, campaign.id, 10)).toMatchObject({
      opens: 0,
      revenueCents: 0,
      links: [],
    });
  });

  it('counts link clicks: a person’s first once as unique, a machine’s apart, most clicked first', async () => {
    const campaign = await ctx.make.campaign(accountId);
    const ada = await ctx.make.subscriber(accountId, { email: 'ada@example.test' });
    const bob = await ctx.make.subscriber(accountId, { email: 'bob@example.test' });
    const click = (who: string, url: string, machine = false) =>
      stats.countLinkClick(ctx.prisma, accountId, campaign.id, who, url, machine);

    expect(await click(ada.id, 'https://a.test/')).toBe(true);
    expect(await click(ada.id, 'https://a.test/')).toBe(false);
    expect(await click(bob.id, 'https://a.test/')).toBe(true);
    expect(await click(bob.id, 'https://a.test/', true)).toBe(false);
    expect(await click(ada.id, 'https://b.test/')).toBe(true);

    const { links } = await stats.campaignEngagement(accountId, campaign.id, 10);
    expect(links).toEqual([
      { url: 'https://a.test/', clicks: 3, uniqueClicks: 2, machineClicks: 1 },
      { url: 'https://b.test/', clicks: 1, uniqueClicks: 1, machineClicks: 0 },
    ]);
    expect((await stats.campaignEngagement(accountId, campaign.id, 1)).links).toHaveLength(1);
  });

  it('credits the campaign a person last clicked, within the window before the given time', async () => {
    const first = await ctx.make.campaign(accountId);
    const second = await ctx.make.campaign(accountId);
    const eve = await ctx.make.subscriber(accountId, { email: 'eve@example.test' });
    await stats.countLinkClick(ctx.prisma, accountId, first.id, eve.id, 'https://x.test/', false);
    await stats.countLinkClick(ctx.prisma, accountId, second.id, eve.id, 'https://y.test/', false);
    // A machine's click is not a person's: it credits nothing.
    await stats.countLinkClick(ctx.prisma, accountId, first.id, eve.id, 'https://z.test/', true);
    const soon = new Date(Date.now() + 60_000);

    expect(await stats.lastClickedCampaign(ctx.prisma, accountId, eve.id, soon, 7)).toBe(second.id);
    // A click in an automation's message is on the hidden campaign of its send step, which
    // is no campaign a client can see: the credit stays with the last campaign clicked.
    const step = await ctx.make.campaign(accountId, { automationId: newId() });
    await stats.countLinkClick(ctx.prisma, accountId, step.id, eve.id, 'https://w.test/', false);
    expect(await stats.lastClickedCampaign(ctx.prisma, accountId, eve.id, soon, 7)).toBe(second.id);
    const before = new Date(Date.now() - 60 * 60_000);
    expect(await stats.lastClickedCampaign(ctx.prisma, accountId, eve.id, before, 7)).toBeNull();
    const muchLater = new Date(Date.now() + 8 * 24 * 60 * 60_000);
    expect(await stats.lastClickedCampaign(ctx.prisma, accountId, eve.id, muchLater, 7)).toBeNull();
    expect(await stats.lastClickedCampaign(ctx.prisma, otherId, eve.id, soon, 7)).toBeNull();
  });

  it('forgets the links that carry an erased address, plain or percent-encoded, with their clickers', async () => {
    const campaign = await ctx.make.campaign(accountId);
    const theirs = await ctx.make.campaign(otherId);
    const zoe = await ctx.make.subscriber(accountId, { email: 'zoe+news@example.test' });
    const other = await ctx.make.subscriber(otherId, { email: 'someone@example.test' });
    const naming = [
      'https://shop.test/?who=zoe+news@example.test',
      'https://shop.test/?who=ZOE%2BNEWS%40EXAMPLE.TEST',
    ];
    for (const url of [...naming, 'https://shop.test/plain']) {
      await stats.countLinkClick(ctx.prisma, accountId, campaign.id, zoe.id, url, false);
    }
    await stats.countLinkClick(ctx.prisma, otherId, theirs.id, other.id, naming[0], false);

    await stats.forgetLinksNaming(ctx.prisma, accountId, 'zoe+news@example.test');

    const { links } = await stats.campaignEngagement(accountId, campaign.id, 10);
    expect(links.map((link) => link.url)).toEqual(['https://shop.test/plain']);
    const clickers = await ctx.prisma.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM campaign_link_clickers WHERE campaign_id = ${campaign.id}::uuid`;
    expect(clickers[0].n).toBe(1);
    // The other account's link naming the same address stays: erasure is per account.
    expect((await stats.campaignEngagement(otherId, theirs.id, 10)).links).toHaveLength(1);
  });
});
