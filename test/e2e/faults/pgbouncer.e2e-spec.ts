import { Client } from 'pg';
import { SCOPES } from '../../../src/auth/scopes';
import { loadConfig } from '../../../src/platform/config/config';
import { ComposedStatement } from '../../../src/platform/database/composed-statement';
import { poolOptions } from '../../../src/platform/database/pg-pool';
import { FaultRig, Tenant } from '../../support/fault-rig';
import { cli } from '../../support/processes';
import { ThrowawayPgBouncer } from '../../support/throwaway-pgbouncer';
import { waitFor } from '../../support/wait-for';

const RECIPIENTS = 300;
const RECEIPTS = 20;

/**
 * Herald behind Debian's PgBouncer (1.18) in transaction mode, as operators run it: an API
 * and two workers with DATABASE_URL on PgBouncer and DATABASE_DIRECT_URL on PostgreSQL. With
 * few server connections shared by every client, any session state Herald left on a pooled
 * connection, or any statement it prepared by name, would surface as errors or lost work.
 */
describe('behind PgBouncer in transaction mode', () => {
  let bouncer: ThrowawayPgBouncer;
  let rig: FaultRig;
  let tenant: Tenant;

  beforeAll(async () => {
    bouncer = await ThrowawayPgBouncer.start({ poolSize: 6 }, 'postgres');
    rig = await FaultRig.start({ pgbouncer: bouncer });
    tenant = await rig.tenant('Pooled');
    rig.startWorker();
    rig.startWorker();
  }, 120_000);
  afterAll(async () => {
    await rig?.dispose();
    await bouncer?.dispose();
  });

  it('refuses the startup parameters a direct pool sends, and Herald sends none there', async () => {
    const direct = loadConfig({ HERALD_SECRET: 'x'.repeat(40) });
    const pooled = loadConfig({ HERALD_SECRET: 'x'.repeat(40), DATABASE_POOLER: 'pgbouncer' });
    const refused = new Client({
      ...poolOptions(direct),
      connectionString: bouncer.urlFor('postgres'),
    });
    await expect(refused.connect()).rejects.toThrow(/unsupported startup parameter/);
    await refused.end().catch(() => undefined);

    const accepted = new Client({
      ...poolOptions(pooled),
      connectionString: bouncer.urlFor('postgres'),
    });
    await accepted.connect();
    try {
      // The bound is the server connections' own (PgBouncer's connect_query here).
      const { rows } = await accepted.query<{ statement_timeout: string }>(
        'SHOW statement_timeout',
      );
      expect(rows[0].statement_timeout).toBe('10s');
    } finally {
      await accepted.end();
    }
  });

  it('runs a composed statement unnamed where a named one collides on a shared connection', async () => {
    const statement = new ComposedStatement();
    const value = statement.param(1);
    const named = statement.build(`SELECT ${value}::int AS one`);
    const unnamed = statement.build(`SELECT ${value}::int AS one`, { named: false });
    // `solo` has one server connection: both clients' transactions run on it.
    const [first, second] = [0, 1].map(
      () => new Client({ connectionString: bouncer.urlFor('solo') }),
    );
    await first.connect();
    await second.connect();
    try {
      await first.query(named);
      await expect(second.query(named)).rejects.toThrow(/already exists/);
      expect((await second.query(unnamed)).rows).toEqual([{ one: 1 }]);
    } finally {
      await first.end();
      await second.end();
    }
  });

  it('sends a campaign and transactional mail through two workers, none lost or twice', async () => {
    const emails = await rig.audience(tenant.accountId, RECIPIENTS, 'pooled.test');
    const campaignId = await rig.sendCampaign(tenant, 'Pooled');
    const receipts = await Promise.all(
      Array.from({ length: RECEIPTS }, async (_, n) => {
        const sent = await rig.request<{ id: string }>(tenant, 'POST', '/v1/transactional/send', {
          to: `buyer${n}@receipts.test`,
          from: 'Acme <hello@acme.test>',
          subject: 'Your receipt',
          text: 'Thanks!',
        });
        expect(sent.status).toBe(202);
        return `buyer${n}@receipts.test`;
      }),
    );
    const stats = await rig.waitUntilSent(tenant, campaignId, 120_000);
    expect(stats).toMatchObject({ delivered: RECIPIENTS, failed: 0, outstanding: 0 });
    await waitFor(() => receipts.every((to) => rig.sink.countOf(to) === 1), {
      timeoutMs: 60_000,
      message: () => rig.logs(),
    });
    expect(rig.sink.missing(emails)).toEqual([]);
    expect(emails.filter((email) => rig.sink.countOf(email) !== 1)).toEqual([]);
    expect(rig.crashed()).toEqual([]);
    expect(rig.logs()).not.toMatch(/prepared statement|unsupported startup parameter/);
  }, 180_000);

  // Through PgBouncer a LISTEN would last one transaction: its server connection goes back to
  // the pool and the notification reaches nobody, so the cached key would keep working.
  it('hears a key revocation at once: LISTEN runs on the direct connection', async () => {
    const created = await cli(rig.env, [
      'keys',
      'create',
      '--account',
      tenant.accountId,
      '--name',
      'short-lived',
      '--scopes',
      SCOPES.join(','),
    ]);
    const { id, key } = JSON.parse(created.stdout) as { id: string; key: string };
    const holder = { accountId: tenant.accountId, auth: `Bearer ${key}` };
    // Read once, so the API process has it cached.
    expect((await rig.request(holder, 'GET', '/v1/subscribers')).status).toBe(200);
    expect((await cli(rig.env, ['keys', 'revoke', '--id', id])).code).toBe(0);
    await waitFor(
      async () => (await rig.request(holder, 'GET', '/v1/subscribers')).status === 401,
      { timeoutMs: 5_000, message: 'the revoked key still worked' },
    );
  });
});
