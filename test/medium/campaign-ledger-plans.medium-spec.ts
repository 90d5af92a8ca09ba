import type { PoolClient } from 'pg';
import { CampaignLedgerRepository } from '../../src/campaigns/ledger/campaign-ledger.repository';
import * as sql from '../../src/campaigns/ledger/campaign-ledger.sql';
import type { RunIdentity } from '../../src/campaigns/ledger/campaign-delivery-runs.repository';
import { ComposedStatement } from '../../src/platform/database/composed-statement';
import { PgPool } from '../../src/platform/database/pg-pool';
import { snapshotAll, startRun, startedCampaign } from '../support/campaign-ledger-fixtures';
import { TestContext } from '../support/test-context';
import { TestEnv } from '../support/test-env';

/** Recipients of each campaign, and the size of a delivery batch (as in production). */
const AUDIENCE = 2000;
const BATCH = 250;
const CLAIM = 50;

/** One node of an EXPLAIN (ANALYZE, FORMAT JSON) plan, as far as the test reads it. */
interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

/** Rows of campaign_recipients the plan read, over every loop of every node that scans it. */
function ledgerRowsVisited(node: PlanNode): number {
  const own =
    node['Relation Name'] === 'campaign_recipients' && node['Node Type'] !== 'ModifyTable'
      ? (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0)) * node['Actual Loops']
      : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + ledgerRowsVisited(child), 0);
}

/**
 * The claim and the outcome write must cost what their batch costs, whatever the planner's
 * statistics say. The case that once stalled a send for minutes: a second campaign to the
 * same people, on a ledger whose statistics describe only the first (all of it sent), so a
 * planner trusting them expects the new campaign to have about one row.
 */
describe('the ledger statements on a ledger whose statistics describe another campaign', () => {
  let env: TestEnv;
  let ctx: TestContext;
  let pool: PgPool;
  let run: RunIdentity;

  beforeAll(async () => {
    env = await TestEnv.create();
    ctx = await TestContext.start(env);
    pool = ctx.get(PgPool);
    const tenant = await ctx.make.tenant();
    await ctx.make.subscribers(tenant.accountId, AUDIENCE);

    const first = await startedCampaign(ctx, tenant);
    await snapshotAll(ctx, tenant, first, { deliverySize: BATCH });
    await ctx.prisma.$executeRaw`UPDATE campaign_recipients
                                    SET status = 'sent', sent_at = now()
                                  WHERE campaign_id = ${first}::uuid`;
    await ctx.prisma.$executeRaw`ANALYZE campaign_recipients`;

    const second = await startedCampaign(ctx, tenant);
    await snapshotAll(ctx, tenant, second, { deliverySize: BATCH });
    run = await startRun(ctx, tenant.accountId, second, 3);
  }, 60_000);

  afterAll(async () => {
    await ctx?.close();
    await env?.dispose();
  });

  /** Runs `work` on one connection in a transaction that is rolled back, under a plan mode. */
  async function rolledBack<T>(mode: string, work: (client: PoolClient) => Promise<T>) {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SET LOCAL plan_cache_mode = ${mode}`);
      return await work(client);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  }

  async function explain(client: PoolClient, text: string, values: unknown[]) {
    const { rows } = await client.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
      `EXPLAIN (ANALYZE, FORMAT JSON) ${text}`,
      values,
    );
    return rows[0]['QUERY PLAN'][0].Plan;
  }

  const claimParams = () => [run.campaignId, run.batch, run.accountId, CLAIM, run.id];

  describe.each(['force_custom_plan', 'force_generic_plan'])('planned with %s', (mode) => {
    it('claims from the batch without reading the rest of the campaign', async () => {
      const plan = await rolledBack(mode, (client) => explain(client, sql.CLAIM, claimParams()));
      // The rows it claimed, plus the batch's index entries it stepped over at most.
      expect(plan['Actual Rows']).toBe(CLAIM);
      expect(ledgerRowsVisited(plan)).toBeLessThanOrEqual(CLAIM + BATCH);
    });

    it("writes outcomes reading only the run's rows and its batch", async () => {
      const plan = await rolledBack(mode, async (client) => {
        const { rows } = await client.query<{ subscriber_id: string }>(sql.CLAIM, claimParams());
        const statement = new ComposedStatement();
        ctx.get(CampaignLedgerRepository).addOutcomes(
          statement,
          run,
          rows.map((row) => ({ subscriberId: row.subscriber_id, kind: 'delivered' as const })),
          { firstSeconds: 60, maxSeconds: 3600, horizonSeconds: 86_400 },
        );
        const { text, values } = statement.build('SELECT count(*) FROM outcomes');
        return explain(client, text, values);
      });
      expect(ledgerRowsVisited(plan)).toBeGreaterThanOrEqual(CLAIM);
      expect(ledgerRowsVisited(plan)).toBeLessThanOrEqual(CLAIM + BATCH);
    });
  });
});
