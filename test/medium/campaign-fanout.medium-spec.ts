import { Client } from 'pg';
import { Prisma } from '../../src/generated/prisma/client';
import { CampaignAudienceSnapshot } from '../../src/campaigns/delivery/campaign-audience-snapshot';
import { ErasureService } from '../../src/erasure/erasure.service';
import { segmentFilterSql } from '../../src/segments/segment-filter-sql';
import { SegmentsService } from '../../src/segments/segments.service';
import {
  counters,
  ledgerRows,
  snapshotAll,
  startedCampaign,
  startRunBeside,
} from '../support/campaign-ledger-fixtures';
import { Tenant } from '../support/factories';
import { TestContext } from '../support/test-context';
import { TestEnv } from '../support/test-env';
import { waitFor } from '../support/wait-for';

const EVERYONE = Prisma.sql`TRUE`;
/** The advisory lock a test holds to keep a fan-out batch's transaction open. */
const GATE = 7_261_001;

/**
 * The fan-out's unit of work on PostgreSQL: the audience read in keyset batches into the
 * ledger, numbered into delivery batches, with the checkpoint on the campaign row moving in
 * the same transaction, so a fan-out that stops anywhere resumes without anyone twice or
 * anyone missed.
 */
describe('campaign fan-out (audience snapshot)', () => {
  let env: TestEnv;
  let ctx: TestContext;
  let fanout: CampaignAudienceSnapshot;

  beforeAll(async () => {
    env = await TestEnv.create();
    ctx = await TestContext.start(env);
    fanout = ctx.get(CampaignAudienceSnapshot);
  });
  afterAll(async () => {
    await ctx?.close();
    await env?.dispose();
  });

  /** A fresh account with `count` subscribers (ids in keyset order) and a started campaign. */
  async function audience(count: number) {
    const tenant: Tenant = await ctx.make.tenant();
    const ids = (await ctx.make.subscribers(tenant.accountId, count)).map((p) => p.id).sort();
    return { tenant, accountId: tenant.accountId, ids };
  }

  it('reads the audience in keyset batches and moves the checkpoint with each', async () => {
    const { tenant, accountId, ids } = await audience(47);
    await ctx.prisma.subscriber.update({ where: { id: ids[3] }, data: { status: 'unsubscribed' } });
    await ctx.prisma.subscriber.update({ where: { id: ids[25] }, data: { status: 'bounced' } });
    const campaignId = await startedCampaign(ctx, tenant);

    // Reads of 20, delivery batches of 10: two delivery batches per read.
    expect(await fanout.snapshotBatch(accountId, campaignId, EVERYONE, 20, 10)).toEqual({
      batches: [0, 1],
      done: false,
    });
    expect(await counters(ctx, campaignId)).toMatchObject({
      fanout_after_id: ids[19],
      fanout_batches: 2,
      fanout_done: false,
      recipient_count: 19,
      skipped_unsubscribed_count: 1,
    });
    expect((await ledgerRows(ctx, campaignId)).map((row) => row.subscriber_id)).toEqual(
      ids.slice(0, 20),
    );

    expect(await fanout.snapshotBatch(accountId, campaignId, EVERYONE, 20, 10)).toEqual({
      batches: [2, 3],
      done: false,
    });
    expect(await counters(ctx, campaignId)).toMatchObject({
      fanout_after_id: ids[39],
      fanout_batches: 4,
      recipient_count: 38,
      skipped_bounced_count: 1,
    });

    // Seven left: a short read, so the audience is done.
    expect(await fanout.snapshotBatch(accountId, campaignId, EVERYONE, 20, 10)).toEqual({
      batches: [4],
      done: true,
    });
    const done = await counters(ctx, campaignId);
    expect(done).toMatchObject({
      fanout_after_id: ids[46],
      fanout_batches: 5,
      fanout_done: true,
      recipient_count: 45,
      skipped_unsubscribed_count: 1,
      skipped_bounced_count: 1,
    });

    const rows = await ledgerRows(ctx, campaignId);
    expect(rows.map((row) => row.subscriber_id)).toEqual(ids);
    expect(rows.map((row) => row.batch)).toEqual(ids.map((_, i) => Math.floor(i / 10)));
    expect(rows[3]).toMatchObject({ status: 'skipped', skip_reason: 'unsubscribed' });
    expect(rows[25]).toMatchObject({ status: 'skipped', skip_reason: 'bounced' });
    expect(rows.filter((row) => row.status === 'pending')).toHaveLength(45);

    // Done is done: another run (a duplicated job) changes nothing.
    expect(await fanout.snapshotBatch(accountId, campaignId, EVERYONE, 20, 10)).toEqual({
      batches: [],
      done: true,
    });
    expect(await counters(ctx, campaignId)).toEqual(done);
    expect(await ledgerRows(ctx, campaignId)).toEqual(rows);
  });

  it('rolls a batch back whole when its checkpoint cannot move, and resumes exactly there', async () => {
    const { tenant, accountId, ids } = await audience(30);
    const campaignId = await startedCampaign(ctx, tenant);
    await fanout.snapshotBatch(accountId, campaignId, EVERYONE, 10, 5);

    // The process dies inside the next batch's transaction, after its ledger insert and
    // before the checkpoint moves: PostgreSQL itself refuses the checkpoint's UPDATE.
    const trigger = `stop_fanout_${campaignId.replace(/-/g, '')}`;
    await ctx.prisma.$executeRawUnsafe(`
      CREATE FUNCTION ${trigger}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'fan-out killed mid-batch'; END $$`);
    await ctx.prisma.$executeRawUnsafe(`
      CREATE TRIGGER ${trigger} BEFORE UPDATE OF fanout_after_id ON campaigns
      FOR EACH ROW WHEN (NEW.id = '${campaignId}'::uuid) EXECUTE FUNCTION ${trigger}()`);
    try {
      await expect(fanout.snapshotBatch(accountId, campaignId, EVERYONE, 10, 5)).rejects.toThrow(
        /killed mid-batch/,
      );
    } finally {
      await ctx.prisma.$executeRawUnsafe(`DROP TRIGGER ${trigger} ON campaigns`);
      await ctx.prisma.$executeRawUnsafe(`DROP FUNCTION ${trigger}()`);
    }
    // Nothing of the failed batch stayed: the ledger and the checkpoint still agree.
    expect((await ledgerRows(ctx, campaignId)).map((row) => row.subscriber_id)).toEqual(
      ids.slice(0, 10),
    );
    expect(await counters(ctx, campaignId)).toMatchObject({
      fanout_after_id: ids[9],
      fanout_batches: 2,
      recipient_count: 10,
    });

    // A new run picks up after the last committed batch: everyone once, numbered in order.
    expect(await snapshotAll(ctx, tenant, campaignId, { size: 10, deliverySize: 5 })).toEqual([
      2, 3, 4, 5,
    ]);
    const rows = await ledgerRows(ctx, campaignId);
    expect(rows.map((row) => row.subscriber_id)).toEqual(ids);
    expect(rows.map((row) => row.batch)).toEqual(ids.map((_, i) => Math.floor(i / 5)));
    expect(await counters(ctx, campaignId)).toMatchObject({
      recipient_count: 30,
      fanout_batches: 6,
      fanout_done: true,
    });
  });

  it('lets a batch’s delivery start while the next batch is being written', async () => {
    const { tenant, accountId } = await audience(20);
    const campaignId = await startedCampaign(ctx, tenant);
    await fanout.snapshotBatch(accountId, campaignId, EVERYONE, 10, 10);

    // The next batch's transaction holds the checkpoint's lock, then waits on a lock this
    // test holds: a batch being written, for as long as the test wants.
    const gate = new Client({ connectionString: env.config.database.directUrl });
    await gate.connect();
    try {
      await gate.query('SELECT pg_advisory_lock($1)', [GATE]);
      const writing = fanout.snapshotBatch(
        accountId,
        campaignId,
        Prisma.sql`(SELECT true FROM (SELECT pg_advisory_xact_lock_shared(${GATE})) AS gate)`,
        10,
        10,
      );
      await waitFor(
        async () =>
          (
            await env.sql(
              `SELECT 1 FROM pg_stat_activity
                WHERE datname = current_database() AND wait_event = 'advisory'`,
            )
          ).length > 0,
        { message: 'the second batch never reached the gate' },
      );

      // Batch 0's delivery job starts its run meanwhile. The run's row refers to the campaign
      // (a key-share lock on its row), which the checkpoint's lock must not refuse.
      const { outcome, run } = await startRunBeside(
        ctx,
        env,
        accountId,
        campaignId,
        'waiting for the fan-out’s batch to commit',
      );
      expect(outcome).toBe('settled');
      await run;

      await gate.query('SELECT pg_advisory_unlock($1)', [GATE]);
      expect(await writing).toEqual({ batches: [1], done: false });
    } finally {
      await gate.end();
    }
  });

  it('snapshots only the segment’s members, with the segment’s compiled filter', async () => {
    const { tenant, accountId, ids } = await audience(12);
    const members = ids.filter((_, i) => i % 3 === 0);
    await ctx.prisma.subscriber.updateMany({
      where: { id: { in: members } },
      data: { countryCode: 'GB' },
    });
    const segment = await ctx.make.segment(accountId, {
      field: 'country_code',
      op: 'eq',
      value: 'GB',
    });
    const campaignId = await startedCampaign(ctx, tenant, segment.id);
    const filter = await ctx.get(SegmentsService).filterOf(accountId, segment.id);
    await snapshotAll(ctx, tenant, campaignId, {
      size: 2,
      deliverySize: 2,
      audience: segmentFilterSql(filter!),
    });

    const rows = await ledgerRows(ctx, campaignId);
    expect(rows.map((row) => row.subscriber_id)).toEqual(members);
    expect(rows.map((row) => row.batch)).toEqual([0, 0, 1, 1]);
    expect(await counters(ctx, campaignId)).toMatchObject({
      recipient_count: 4,
      fanout_done: true,
    });
  });

  it('counts people erased since the send started as skipped, for a campaign to everyone', async () => {
    const { tenant, ids } = await audience(8);
    const emails = await ctx.prisma.subscriber.findMany({
      where: { id: { in: [ids[2], ids[6]] } },
      select: { email: true },
    });
    const campaignId = await startedCampaign(ctx, tenant);
    for (const { email } of emails) {
      await ctx.get(ErasureService).erase(tenant.principal, email);
    }
    await snapshotAll(ctx, tenant, campaignId, { size: 4, deliverySize: 4 });

    const rows = await ledgerRows(ctx, campaignId);
    expect(rows.map((row) => row.subscriber_id)).toEqual(
      ids.filter((id) => id !== ids[2] && id !== ids[6]),
    );
    expect(await counters(ctx, campaignId)).toMatchObject({
      recipient_count: 6,
      skipped_erased_count: 2,
    });
  });

  it('reads only the campaign’s own account', async () => {
    const { tenant, accountId } = await audience(3);
    const other = await ctx.make.tenant('Other');
    await ctx.make.subscribers(other.accountId, 5, { domain: 'other.test' });
    const campaignId = await startedCampaign(ctx, tenant);
    // Another account naming this campaign reads and writes nothing.
    expect(await fanout.snapshotBatch(other.accountId, campaignId, EVERYONE, 10, 10)).toEqual({
      batches: [],
      done: true,
    });
    expect(await ledgerRows(ctx, campaignId)).toEqual([]);
    await fanout.snapshotBatch(accountId, campaignId, EVERYONE, 10, 10);
    expect(await ledgerRows(ctx, campaignId)).toHaveLength(3);
  });
});
