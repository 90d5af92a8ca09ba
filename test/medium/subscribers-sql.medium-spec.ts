import { Prisma } from '../../src/generated/prisma/client';
import { newId } from '../../src/platform/crypto/ids';
import { AccountId, parseAccountId } from '../../src/platform/database/account-id';
import { ComposedStatement, relation } from '../../src/platform/database/composed-statement';
import { PgPool } from '../../src/platform/database/pg-pool';
import { runSql } from '../../src/platform/database/sql-runner';
import { SOFT_BOUNCE_LIMIT } from '../../src/suppression/suppression-reason';
import { emptyProfile, PROFILE_FIELDS } from '../../src/subscribers/subscriber-fields';
import { SubscriberStatisticsRepository } from '../../src/subscribers/subscriber-statistics.repository';
import { ProfileRow, SubscribersRepository } from '../../src/subscribers/subscribers.repository';
import { TestContext } from '../support/test-context';
import { TestEnv } from '../support/test-env';

/**
 * The statements of subscribers.sql.ts through SubscribersRepository and
 * SubscriberStatisticsRepository on PostgreSQL: the list page's column list against Prisma's
 * own read, the bulk writes (COPY, lock by email, profile update) over every field of the
 * field table, unsubscribe, reactivation, feedback and the counters, and export pages.
 */
describe('subscribers.sql', () => {
  let env: TestEnv;
  let ctx: TestContext;
  let subscribers: SubscribersRepository;
  let statistics: SubscriberStatisticsRepository;
  let pool: PgPool;
  let accountId: AccountId;

  beforeAll(async () => {
    env = await TestEnv.create();
    ctx = await TestContext.start(env);
    subscribers = ctx.get(SubscribersRepository);
    statistics = ctx.get(SubscriberStatisticsRepository);
    pool = ctx.get(PgPool);
    accountId = parseAccountId(await ctx.make.account('Subscribers'));
  });
  afterAll(async () => {
    await ctx?.close();
    await env?.dispose();
  });

  const make = (overrides: Partial<Prisma.SubscriberUncheckedCreateInput> = {}) =>
    ctx.make.subscriber(accountId, overrides);

  /** A delivered transactional message's part, in a statement whose send relation has `rows`. */
  async function countDelivery(email: string, rows: number) {
    const statement = new ComposedStatement();
    statement.with(`recorded AS (SELECT generate_series(1, ${rows}))`);
    statistics.addTransactionalDelivery(statement, accountId, email, relation('recorded'));
    const { text, values } = statement.build('SELECT 1', { named: false });
    await runSql(ctx.prisma, text, values);
  }

  /** A profile with a value in every field of the table. */
  function fullProfile(email: string): ProfileRow {
    return {
      ...emptyProfile(),
      id: newId(),
      email,
      emailNormalized: email.toLowerCase(),
      firstName: 'Ada',
      lastName: 'Lovelace',
      phone: '+44 20 0000',
      address1: '1 Analytical Row',
      address2: 'Flat 2',
      city: 'London',
      state: 'Greater London',
      zip: 'N1',
      countryCode: 'GB',
      birthdate: new Date('1815-12-10T00:00:00.000Z'),
      gender: 'female',
      incomeLevel: 'high',
      membershipStatus: 'gold',
      status: 'subscribed',
      timezone: 'Europe/London',
      interests: ['maths', 'engines'],
      tags: ['vip'],
      customFields: { plan: 'pro', seats: 3 },
      socialMedia: [{ platform: 'twitter', profile_id: 'ada' }],
      importedStats: { opens: 9 },
    };
  }

  it('reads a page with every column, as Prisma reads the row, newest first', async () => {
    const other = parseAccountId(await ctx.make.account('Elsewhere'));
    await ctx.make.subscriber(other);
    const first = await make({ firstName: 'First', tags: ['a'], customFields: { k: 1 } });
    const second = await make({ firstName: 'Second' });
    const page = await subscribers.listPage(accountId, { limit: 2 });
    expect(page.map((row) => row.id)).toEqual([second.id, first.id]);
    const viaPrisma = await subscribers.findById(accountId, first.id);
    expect(page[1]).toEqual(viaPrisma);
    expect(await subscribers.listPage(accountId, { limit: 10, afterId: second.id })).toEqual([
      page[1],
    ]);
    expect((await subscribers.findByIds(accountId, [first.id, newId()])).map((r) => r.id)).toEqual([
      first.id,
    ]);
  });

  it('writes every field of the table with COPY, reads it back locked, and updates it', async () => {
    const row = fullProfile('Bulk@Example.test');
    await pool.transaction((client) => subscribers.insertMany(client, accountId, [row]));
    const locked = await pool.transaction((client) =>
      subscribers.lockByEmails(client, accountId, ['bulk@example.test', 'absent@example.test']),
    );
    expect(locked).toEqual([row]);

    const changed: ProfileRow = {
      ...row,
      firstName: null,
      tags: [],
      customFields: {},
      socialMedia: [],
      birthdate: null,
      status: 'unsubscribed',
    };
    await pool.transaction((client) => subscribers.updateProfiles(client, accountId, [changed]));
    const stored = (await subscribers.findById(accountId, row.id))!;
    for (const field of PROFILE_FIELDS) {
      expect([field.name, stored[field.prop]]).toEqual([field.name, changed[field.prop]]);
    }
  });

  it('unsubscribes idempotently, and reactivates only from the status an entry caused', async () => {
    const person = await make({ status: 'subscribed' });
    await subscribers.unsubscribe(accountId, person.id);
    await subscribers.unsubscribe(accountId, person.id);
    expect((await subscribers.findById(accountId, person.id))!.status).toBe('unsubscribed');

    const email = person.emailNormalized;
    expect(await subscribers.reactivate(accountId, email, 'bounced', ctx.prisma)).toBe(false);
    expect((await subscribers.findById(accountId, person.id))!.status).toBe('unsubscribed');
    expect(await subscribers.reactivate(accountId, email, 'unsubscribed', ctx.prisma)).toBe(true);
    expect((await subscribers.findById(accountId, person.id))!.status).toBe('subscribed');
  });

  it('applies feedback: a hard bounce at once, soft bounces at the limit, complaints over unsubscribes', async () => {
    const hard = await make();
    expect(await statistics.applyFeedback(accountId, hard.id, 'hard_bounce', ctx.prisma)).toEqual({
      suppress: 'hard_bounce',
      emailNormalized: hard.emailNormalized,
    });
    expect((await subscribers.findById(accountId, hard.id))!).toMatchObject({
      status: 'bounced',
      statHardBounces: 1,
    });

    const soft = await make();
    for (let bounce = 1; bounce < SOFT_BOUNCE_LIMIT; bounce++) {
      const effect = await statistics.applyFeedback(accountId, soft.id, 'soft_bounce', ctx.prisma);
      expect(effect?.suppress).toBeUndefined();
    }
    const last = await statistics.applyFeedback(accountId, soft.id, 'soft_bounce', ctx.prisma);
    expect(last?.suppress).toBe('hard_bounce');
    expect((await subscribers.findById(accountId, soft.id))!.status).toBe('bounced');

    const complaining = await make({ status: 'unsubscribed' });
    await statistics.applyFeedback(accountId, complaining.id, 'complaint', ctx.prisma);
    expect((await subscribers.findById(accountId, complaining.id))!.status).toBe('complained');
    expect(await statistics.applyFeedback(accountId, newId(), 'complaint', ctx.prisma)).toBe(
      undefined,
    );
  });

  it('counts transactional mail, opens, clicks and revenue on the subscriber', async () => {
    const person = await make();
    const email = person.emailNormalized;
    // Counted only when the outcome write recorded the send (its relation holds a row).
    await countDelivery(email, 0);
    await countDelivery(email, 1);
    for (let bounce = 1; bounce < SOFT_BOUNCE_LIMIT; bounce++) {
      expect(await statistics.countTransactionalBounce(accountId, email, false, ctx.prisma)).toBe(
        false,
      );
    }
    expect(await statistics.countTransactionalBounce(accountId, email, false, ctx.prisma)).toBe(
      true,
    );
    expect(await statistics.countEngagement(accountId, person.id, 'open', ctx.prisma)).toBe(true);
    expect(await statistics.countEngagement(accountId, person.id, 'click', ctx.prisma)).toBe(true);
    expect(await statistics.addRevenue(accountId, person.id, 1250, ctx.prisma)).toBe(true);
    expect(await statistics.addRevenue(accountId, newId(), 1, ctx.prisma)).toBe(false);
    const row = (await subscribers.findById(accountId, person.id))!;
    expect(row).toMatchObject({
      statSent: 1 + SOFT_BOUNCE_LIMIT,
      statDelivered: 1,
      statSoftBounces: SOFT_BOUNCE_LIMIT,
      statOpens: 1,
      statClicks: 1,
      statRevenueCents: 1250n,
      status: 'bounced',
    });
    expect(row.lastOpenAt).not.toBeNull();
    expect(row.lastClickAt).not.toBeNull();
  });

  it('pages an export oldest first within a filter, with the custom keys it uses', async () => {
    const exporting = parseAccountId(await ctx.make.account('Exporting'));
    const rows = [];
    for (const [index, country] of ['GB', 'FR', 'GB'].entries()) {
      rows.push(
        await ctx.make.subscriber(exporting, {
          countryCode: country,
          customFields: { [`key${index}`]: index, shared: true },
        }),
      );
    }
    const gb = Prisma.sql`s.country_code = 'GB'`;
    const firstPage = await subscribers.exportPage(exporting, gb, null, 1);
    expect(firstPage.map((row) => row.id)).toEqual([rows[0].id]);
    const next = await subscribers.exportPage(exporting, gb, firstPage[0].id, 10);
    expect(next.map((row) => row.id)).toEqual([rows[2].id]);
    expect(await subscribers.customKeys(exporting, gb, 10)).toEqual(['key0', 'key2', 'shared']);
    expect(await subscribers.customKeys(exporting, Prisma.sql`TRUE`, 2)).toEqual(['key0', 'key1']);
  });
});
