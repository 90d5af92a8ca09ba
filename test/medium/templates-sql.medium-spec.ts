import { Client } from 'pg';
import { AccountId, parseAccountId } from '../../src/platform/database/account-id';
import { TemplatesRepository } from '../../src/templates/templates.repository';
import { lockTemplate } from '../../src/templates/templates.sql';
import { TestContext } from '../support/test-context';
import { TestEnv } from '../support/test-env';
import { latch, waitFor } from '../support/wait-for';

/**
 * The statement of templates.sql.ts through TemplatesRepository on PostgreSQL: an update
 * reads its template under a row lock, so two concurrent changes each see the other's result
 * (a template never loses both bodies), and another account's template is never read; and
 * that lock leaves the row's key alone, so campaigns can take the template up meanwhile.
 */
describe('templates.sql', () => {
  let env: TestEnv;
  let ctx: TestContext;
  let templates: TemplatesRepository;
  let accountId: AccountId;
  let otherId: AccountId;

  beforeAll(async () => {
    env = await TestEnv.create();
    ctx = await TestContext.start(env);
    templates = ctx.get(TemplatesRepository);
    accountId = parseAccountId(await ctx.make.account('Templates'));
    otherId = parseAccountId(await ctx.make.account('Other templates'));
  });
  afterAll(async () => {
    await ctx?.close();
    await env?.dispose();
  });

  it('updates only a template of the account', async () => {
    const template = await ctx.make.template(accountId, { subject: 'Original' });
    let called = false;
    const outcome = await templates.update(otherId, template.id, () => {
      called = true;
      return { subject: 'Hijacked' };
    });
    expect(outcome).toBeNull();
    expect(called).toBe(false);
    expect((await templates.findById(accountId, template.id))?.subject).toBe('Original');
    expect(
      await templates.update(accountId, template.id, () => ({ subject: 'Mine' })),
    ).toMatchObject({ subject: 'Mine' });
  });

  it('makes a concurrent change wait and see the first one’s result', async () => {
    const template = await ctx.make.template(accountId, { html: '<p>Hi</p>', text: 'Hi' });
    /** Clears one body, refusing when the other one is already gone. */
    const clear =
      (field: 'html' | 'text') => (current: { html: string | null; text: string | null }) => {
        const other = field === 'html' ? current.text : current.html;
        if (other === null) throw new Error(`cannot clear ${field}: the template would be empty`);
        return { [field]: null };
      };
    // A third session holds the row, so both changes are under way before either reads it.
    const holder = new Client({ connectionString: env.config.databaseUrl });
    await holder.connect();
    let settled: PromiseSettledResult<unknown>[];
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM templates WHERE id = $1 FOR UPDATE', [template.id]);
      const first = templates.update(accountId, template.id, clear('html'));
      const second = templates.update(accountId, template.id, clear('text'));
      await waitFor(async () => {
        const waiting = await env.sql(
          `SELECT 1 FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        return waiting.length === 2;
      });
      await holder.query('COMMIT');
      settled = await Promise.allSettled([first, second]);
    } finally {
      await holder.end();
    }
    expect(settled.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(await templates.findById(accountId, template.id)).toMatchObject({
      html: null,
      text: 'Hi',
    });
  });

  it('lets a campaign take the template up while a change of the template is uncommitted', async () => {
    const template = await ctx.make.template(accountId);
    const lockTaken = latch();
    const commit = latch();
    const change = ctx.prisma.$transaction(async (tx) => {
      expect(await tx.$queryRaw(lockTemplate(accountId, template.id))).toHaveLength(1);
      lockTaken.open();
      await commit.opened;
    });
    // A change that failed before it took the lock ends the wait too, with its error.
    await Promise.race([lockTaken.opened, change]);

    // The campaign's row refers to the template (a key-share lock on its row), which the
    // change's lock must not refuse: a PATCH of a template holds up no campaign.
    const creating = ctx.make.campaign(accountId, { templateId: template.id });
    const outcome = await env.settledOrWaiting(
      creating,
      '%INSERT INTO%campaigns%',
      'waiting for the template’s change to commit',
    );
    commit.open();
    await Promise.all([change, creating]);
    expect(outcome).toBe('settled');
    expect(await ctx.prisma.campaign.count({ where: { templateId: template.id } })).toBe(1);
  });
});
