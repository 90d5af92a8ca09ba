import { Prisma } from '../../src/generated/prisma/client';
import { AutomationStepSends } from '../../src/campaigns/core/automation-step-sends';
import { newId } from '../../src/platform/crypto/ids';
import { accountIdOfRow } from '../../src/platform/database/account-id';
import { AutomationRunsRepository } from '../../src/automations/runs/automation-runs.repository';
import { AutomationTriggersRepository } from '../../src/automations/triggers/automation-triggers.repository';
import * as engineSql from '../../src/automations/engine/automation-engine.sql';
import type { Tenant } from '../support/factories';
import { TestContext } from '../support/test-context';
import { TestEnv } from '../support/test-env';

/**
 * The automations' statements on PostgreSQL: the date trigger's calendar (time zones, offsets,
 * 29 February), segment entry, enrolment under each reentry rule, the engine's claim and the
 * exits, and the send step's rows in the campaign ledger.
 */
describe('automation statements', () => {
  let env: TestEnv;
  let ctx: TestContext;
  let tenant: Tenant;
  let triggers: AutomationTriggersRepository;
  let runs: AutomationRunsRepository;

  beforeAll(async () => {
    env = await TestEnv.create();
    ctx = await TestContext.start(env);
    tenant = await ctx.make.tenant('Automated');
    triggers = ctx.get(AutomationTriggersRepository);
    runs = ctx.get(AutomationRunsRepository);
  });
  afterAll(async () => {
    await ctx?.close();
    await env?.dispose();
  });

  const accountId = () => accountIdOfRow(tenant.accountId);
  const automation = async (overrides: Partial<Prisma.AutomationUncheckedCreateInput> = {}) => {
    const id = newId();
    await ctx.prisma.automation.create({
      data: {
        id,
        accountId: tenant.accountId,
        name: 'A',
        status: 'active',
        trigger: { type: 'manual' },
        steps: [{ id: 'w', type: 'wait', seconds: 60 }],
        triggerType: 'manual',
        ...overrides,
      },
    });
    return id;
  };
  const due = (automationId: string, field: string, now: string, at = '09:00', offsetDays = 0) =>
    ctx.prisma.$transaction((tx) =>
      triggers.datesDue(
        accountId(),
        {
          automationId,
          trigger: { field, offsetDays, at },
          now: new Date(now),
          since: new Date('2000-01-01T00:00:00Z'),
          limit: 100,
        },
        tx,
      ),
    );

  describe('date trigger', () => {
    let leap: string;
    let tokyo: string;
    let custom: string;
    let id: string;
    beforeAll(async () => {
      leap = (
        await ctx.make.subscriber(tenant.accountId, {
          birthdate: new Date('2000-02-29T00:00:00Z'),
        })
      ).id;
      tokyo = (
        await ctx.make.subscriber(tenant.accountId, {
          birthdate: new Date('1990-06-15T00:00:00Z'),
          timezone: 'Asia/Tokyo',
        })
      ).id;
      custom = (
        await ctx.make.subscriber(tenant.accountId, {
          customFields: { renewal: '2020-12-31', broken: '2020-13-01' },
        })
      ).id;
      await ctx.make.subscriber(tenant.accountId, { timezone: 'Not/AZone' });
      id = await automation();
    });
    const ids = (rows: { subscriber_id: string; year: number }[]) =>
      rows.map((r) => `${r.subscriber_id}:${r.year}`);

    it('fires 29 February on 28 February in other years, and on the 29th in leap years', async () => {
      expect(ids(await due(id, 'birthdate', '2027-02-28T09:30:00Z'))).toEqual([`${leap}:2027`]);
      expect(ids(await due(id, 'birthdate', '2027-03-01T09:30:00Z'))).toEqual([]);
      expect(ids(await due(id, 'birthdate', '2028-02-28T09:30:00Z'))).toEqual([]);
      expect(ids(await due(id, 'birthdate', '2028-02-29T09:30:00Z'))).toEqual([`${leap}:2028`]);
    });

    it('fires at the time in the subscriber time zone, within a day of it', async () => {
      // 09:00 in Tokyo is 00:00 UTC.
      expect(await due(id, 'birthdate', '2027-06-14T23:59:00Z')).toEqual([]);
      expect(ids(await due(id, 'birthdate', '2027-06-15T00:01:00Z'))).toEqual([`${tokyo}:2027`]);
      expect(await due(id, 'birthdate', '2027-06-16T00:01:00Z')).toEqual([]);
    });

    it('reads a custom field holding YYYY-MM-DD, with offsets across the new year', async () => {
      expect(ids(await due(id, 'custom_fields.renewal', '2027-12-31T10:00:00Z'))).toEqual([
        `${custom}:2027`,
      ]);
      // Seven days before 31 December; the day after it belongs to the next year's date.
      expect(ids(await due(id, 'renewal', '2027-12-24T10:00:00Z', '09:00', -7))).toEqual([
        `${custom}:2027`,
      ]);
      expect(ids(await due(id, 'renewal', '2028-01-01T10:00:00Z', '09:00', 1))).toEqual([
        `${custom}:2027`,
      ]);
      expect(await due(id, 'broken', '2027-01-01T10:00:00Z')).toEqual([]);
    });

    it('never fires a year that already has its run, nor a moment before activation', async () => {
      await ctx.prisma.automationRun.create({
        data: {
          id: newId(),
          accountId: tenant.accountId,
          automationId: id,
          subscriberId: leap,
          triggerKey: 'date:2029',
          status: 'completed',
        },
      });
      expect(await due(id, 'birthdate', '2029-02-28T09:30:00Z')).toEqual([]);
      const late = await ctx.prisma.$transaction((tx) =>
        triggers.datesDue(
          accountId(),
          {
            automationId: id,
            trigger: { field: 'birthdate', offsetDays: 0, at: '09:00' },
            now: new Date('2030-02-28T09:30:00Z'),
            since: new Date('2030-02-28T09:10:00Z'),
            limit: 100,
          },
          tx,
        ),
      );
      expect(late).toEqual([]);
    });
  });

  it('finds who entered a segment since the baseline, and forgets who left', async () => {
    const id = await automation();
    const audience = Prisma.sql`s.city = 'Oslo'`;
    const before = await ctx.make.subscriber(tenant.accountId, { city: 'Oslo' });
    await ctx.prisma.$transaction((tx) => triggers.baseline(accountId(), id, audience, tx));
    const later = await ctx.make.subscriber(tenant.accountId, { city: 'Bergen' });
    const sweep = () =>
      ctx.prisma.$transaction((tx) => triggers.segmentEntries(accountId(), id, audience, tx));
    expect(await sweep()).toEqual([]);
    await ctx.prisma.subscriber.update({ where: { id: later.id }, data: { city: 'Oslo' } });
    expect(await sweep()).toEqual([later.id]);
    expect(await sweep()).toEqual([]);
    await ctx.prisma.subscriber.update({ where: { id: before.id }, data: { city: 'Bergen' } });
    expect(await sweep()).toEqual([]);
    await ctx.prisma.subscriber.update({ where: { id: before.id }, data: { city: 'Oslo' } });
    expect(await sweep()).toEqual([before.id]);
  });

  it('finds subscribers created since a moment, once per automation', async () => {
    const id = await automation();
    const since = new Date(Date.now() - 1000);
    const fresh = await ctx.make.subscriber(tenant.accountId, {});
    const found = await ctx.prisma.$transaction((tx) =>
      triggers.createdSince(accountId(), id, since, 100, tx),
    );
    expect(found).toContain(fresh.id);
    await ctx.prisma.$transaction((tx) =>
      runs.enrol(
        accountId(),
        { id, firstStepId: 'w', reentry: 'never' },
        [{ subscriberId: fresh.id, key: 'created' }],
        Prisma.sql`TRUE`,
        tx,
      ),
    );
    const again = await ctx.prisma.$transaction((tx) =>
      triggers.createdSince(accountId(), id, since, 100, tx),
    );
    expect(again).not.toContain(fresh.id);
  });

  describe('enrolment', () => {
    const enrol = (
      id: string,
      reentry: string,
      subscriberId: string,
      key: string,
      filter = Prisma.sql`TRUE`,
    ) =>
      ctx.prisma.$transaction((tx) =>
        runs.enrol(
          accountId(),
          { id, firstStepId: 'w', reentry },
          [{ subscriberId, key }],
          filter,
          tx,
        ),
      );

    it('applies each reentry rule and the filter', async () => {
      const person = (await ctx.make.subscriber(tenant.accountId, { city: 'Rome' })).id;
      const never = await automation();
      expect(await enrol(never, 'never', person, 'a')).toHaveLength(1);
      expect(await enrol(never, 'never', person, 'b')).toHaveLength(0);

      const afterExit = await automation();
      const [first] = await enrol(afterExit, 'after_exit', person, 'a');
      expect(await enrol(afterExit, 'after_exit', person, 'b')).toHaveLength(0);
      await ctx.prisma.automationRun.update({
        where: { id: first.id },
        data: { status: 'exited' },
      });
      expect(await enrol(afterExit, 'after_exit', person, 'c')).toHaveLength(1);

      const always = await automation();
      expect(await enrol(always, 'always', person, 'a')).toHaveLength(1);
      expect(await enrol(always, 'always', person, 'b')).toHaveLength(1);
      expect(await enrol(always, 'always', person, 'b')).toHaveLength(0); // same trigger
      const entries = await ctx.prisma.automationRun.findMany({
        where: { automationId: always },
        orderBy: { entry: 'asc' },
      });
      expect(entries.map((r) => r.entry)).toEqual([0, 1]);

      const filtered = await automation();
      expect(await enrol(filtered, 'always', person, 'a', Prisma.sql`s.city = 'Paris'`)).toEqual(
        [],
      );
    });

    it('claims due runs of active automations only, and exits the unmailable', async () => {
      const active = await automation();
      const paused = await automation({ status: 'paused' });
      const person = (await ctx.make.subscriber(tenant.accountId, {})).id;
      const [run] = await enrol(active, 'never', person, 'x');
      const [held] = await enrol(paused, 'never', person, 'x');
      const claimed = await ctx.prisma.$transaction((tx) => runs.claimDue(1000, tx));
      expect(claimed.map((r) => r.id)).toContain(run.id);
      expect(claimed.map((r) => r.id)).not.toContain(held.id);

      const facts = await ctx.prisma.$queryRaw<
        { id: string; status: string; suppressed: boolean }[]
      >(engineSql.subscriberFacts([person]));
      expect(facts).toEqual([{ id: person, status: 'subscribed', suppressed: false }]);

      await ctx.prisma.subscriber.update({ where: { id: person }, data: { status: 'complained' } });
      const exited = await ctx.prisma.$transaction((tx) => runs.exitUnmailable(1000, tx));
      expect(exited.filter((r) => r.subscriber_id === person).map((r) => r.exit_reason)).toEqual([
        'complained',
        'complained',
      ]);
    });
  });

  it('puts one ledger row per run into a step campaign, in a new batch each time', async () => {
    const sends = ctx.get(AutomationStepSends);
    const template = await ctx.make.template(tenant.accountId);
    const person = (await ctx.make.subscriber(tenant.accountId, {})).id;
    const automationId = await automation();
    const campaignId = await ctx.prisma.$transaction((tx) =>
      sends.createCampaign(
        accountId(),
        automationId,
        'Step',
        { subject: 'S', from: 'a@b.test', templateId: template.id, html: '<p>x</p>', text: 'x' },
        tx,
      ),
    );
    const first = await ctx.prisma.$transaction((tx) =>
      sends.add(accountId(), campaignId, [person], tx),
    );
    const second = await ctx.prisma.$transaction((tx) =>
      sends.add(accountId(), campaignId, [person], tx),
    );
    expect(second).toBe(first + 1);
    const rows = await env.sql(
      'SELECT batch, status::text FROM campaign_recipients WHERE campaign_id = $1',
      [campaignId],
    );
    expect(rows).toEqual([{ batch: first, status: 'pending' }]);
    const activity = await sends.activity(accountId(), [{ campaignId, subscriberId: person }]);
    expect(activity.get(`${campaignId}.${person}`)).toEqual({ opened: false, clicked: false });
    expect(await sends.counts(accountId(), [campaignId])).toMatchObject({ sent: 0, delivered: 0 });
    // Listed nowhere, and never completed.
    const [campaign] = await env.sql<{ status: string }>(
      'SELECT status::text FROM campaigns WHERE id = $1',
      [campaignId],
    );
    expect(campaign.status).toBe('sending');
  });
});
