import { ErasureGuard } from '../../src/erasure/erasure-guard';
import { MessageLog } from '../../src/messages/message-log';
import { firstIdOf } from '../../src/messages/message-retention';
import { MessagesRepository } from '../../src/messages/messages.repository';
import * as sql from '../../src/messages/messages.sql';
import { newId } from '../../src/platform/crypto/ids';
import { AccountId, parseAccountId } from '../../src/platform/database/account-id';
import { ComposedStatement, relation } from '../../src/platform/database/composed-statement';
import { PgPool } from '../../src/platform/database/pg-pool';
import { TestContext } from '../support/test-context';
import { TestEnv } from '../support/test-env';

/** One node of an EXPLAIN (ANALYZE, FORMAT JSON) plan, as far as the test reads it. */
interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/** Rows of `table` the plan read, over every loop of every node that scans it. */
function rowsVisited(node: PlanNode, table: string): number {
  const removed =
    (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0);
  const own =
    node['Relation Name'] === table && node['Node Type'] !== 'ModifyTable'
      ? (node['Actual Rows'] + removed) * node['Actual Loops']
      : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsVisited(child, table), 0);
}

/**
 * The statements of messages.sql.ts through MessageLog and MessagesRepository on PostgreSQL:
 * a recorded message is written once; events find their message by id or by (campaign,
 * subscriber) and move its status forward only; the campaign part logs exactly the rows its
 * relation names and finds a deferred message again; pages are keyset over (created_at, id)
 * within the account and filters; erasure and retention reach what they should and nothing else.
 */
describe('messages.sql', () => {
  let env: TestEnv;
  let ctx: TestContext;
  let log: MessageLog;
  let messages: MessagesRepository;
  let pool: PgPool;
  let accountId: AccountId;
  let otherId: AccountId;
  const kept = new Date(0);

  beforeAll(async () => {
    env = await TestEnv.create();
    ctx = await TestContext.start(env);
    log = ctx.get(MessageLog);
    messages = ctx.get(MessagesRepository);
    pool = ctx.get(PgPool);
    accountId = parseAccountId(await ctx.make.account('Messages'));
    otherId = parseAccountId(await ctx.make.account('Other messages'));
  });
  afterAll(async () => {
    await ctx?.close();
    await env?.dispose();
  });

  const record = async (recipient: string, account = accountId, id = newId()) => {
    await log.record(pool, account, {
      id,
      source: 'transactional',
      recipient,
      from: 'app@acme.test',
      subject: `Hello ${recipient}`,
    });
    return id;
  };
  const eventsOf = async (id: string) => (await messages.find(accountId, id, kept))?.events ?? [];
  const statusOf = async (id: string, account = accountId) =>
    (await messages.find(account, id, kept))?.status;

  it('records a message once, scoped to its account', async () => {
    const id = await record('once@example.test');
    await record('twice@example.test', accountId, id);
    expect(await messages.find(accountId, id, kept)).toMatchObject({
      id,
      recipient: 'once@example.test',
      status: 'queued',
      source: 'transactional',
    });
    expect(await messages.find(otherId, id, kept)).toBeNull();
    expect(await messages.find(accountId, id, new Date(Date.now() + 60_000))).toBeNull();
  });

  it('appends events in order and moves the status forward only', async () => {
    const id = await record('events@example.test');
    await log.append(pool, accountId, [
      { message: { messageId: id }, type: 'sent' },
      { message: { messageId: id }, type: 'delivered', smtpCode: 250, reason: '250 ok' },
    ]);
    expect(await statusOf(id)).toBe('delivered');
    await log.append(pool, accountId, [
      { message: { messageId: id }, type: 'bounced', smtpCode: 550, reason: 'gone' },
    ]);
    await log.append(pool, accountId, [
      { message: { messageId: id }, type: 'delivered' },
      { message: { messageId: id }, type: 'opened', machine: false },
    ]);
    expect(await statusOf(id)).toBe('bounced');
    expect((await eventsOf(id)).map((e) => e.type)).toEqual([
      'sent',
      'delivered',
      'bounced',
      'delivered',
      'opened',
    ]);
    // Another account's events for it are dropped.
    await log.append(pool, otherId, [{ message: { messageId: id }, type: 'complained' }]);
    expect(await statusOf(id)).toBe('bounced');
    expect(await eventsOf(id)).toHaveLength(5);
  });

  describe('the campaign part of an outcome write', () => {
    const [ada, bob, cy, dee] = [newId(), newId(), newId(), newId()];
    let campaign: string;

    beforeAll(async () => {
      campaign = (await ctx.make.campaign(accountId, { fromAddress: 'news@acme.test' })).id;
    });

    /** Runs the part over a relation `logged` of the given rows, as the ledger part would. */
    const write = async (
      rows: { subscriber: string; status: string; skip?: string; code?: number }[],
      outcomes = rows,
    ) => {
      const statement = new ComposedStatement();
      const p = (value: unknown) => statement.param(value);
      statement.with(`logged AS (
        SELECT * FROM unnest(${p(rows.map((r) => r.subscriber))}::uuid[],
                             ${p(rows.map((r) => r.status))}::text[],
                             ${p(rows.map((r) => r.skip ?? null))}::text[],
                             ${p(rows.map((r) => r.code ?? null))}::int[])
                 AS l(subscriber_id, status, skip_reason, smtp_code))`);
      log.addCampaignOutcomes(
        statement,
        accountId,
        campaign,
        relation('logged'),
        outcomes.map((o) => ({
          subscriberId: o.subscriber,
          recipient: `${o.subscriber.slice(0, 8)}@example.test`,
          subject: 'Spring',
          messageId: `<${campaign}.${o.subscriber}@acme.test>`,
          reply: o.code ? `${o.code} reply` : '250 ok',
        })),
      );
      await pool.query(statement.build('SELECT 1', { named: false }));
    };
    const messageOf = async (subscriber: string) => {
      const { rows } = await pool.query<{ id: string; status: string; from_address: string }>(
        `SELECT id::text, status, from_address FROM messages
          WHERE source = 'campaign' AND campaign_id = $1 AND subscriber_id = $2`,
        [campaign, subscriber],
      );
      return rows;
    };

    it('logs each row written with the events of its outcome, and only those rows', async () => {
      await write(
        [
          { subscriber: ada, status: 'sent' },
          { subscriber: bob, status: 'failed', code: 550 },
          { subscriber: cy, status: 'skipped', skip: 'erased' },
        ],
        [
          { subscriber: ada, status: 'sent' },
          { subscriber: bob, status: 'failed', code: 550 },
          { subscriber: cy, status: 'skipped', skip: 'erased' },
          // An outcome the ledger did not write (not in `logged`): no message.
          { subscriber: dee, status: 'sent' },
        ],
      );
      const [adaMessage] = await messageOf(ada);
      expect(adaMessage).toMatchObject({ status: 'delivered', from_address: 'news@acme.test' });
      expect((await eventsOf(adaMessage.id)).map((e) => [e.type, e.smtp_code])).toEqual([
        ['sent', null],
        ['delivered', 250],
      ]);
      const [bobMessage] = await messageOf(bob);
      expect(bobMessage.status).toBe('bounced');
      expect((await eventsOf(bobMessage.id)).at(-1)).toMatchObject({
        type: 'bounced',
        smtp_code: 550,
        reason: '550 reply',
      });
      expect(await messageOf(cy)).toEqual([]);
      expect(await messageOf(dee)).toEqual([]);
    });

    it('finds a deferred message again when its retry ends', async () => {
      await write([{ subscriber: dee, status: 'deferred', code: 451 }]);
      const [first] = await messageOf(dee);
      expect(first.status).toBe('deferred');
      await write([{ subscriber: dee, status: 'sent' }]);
      const after = await messageOf(dee);
      expect(after).toEqual([{ ...first, status: 'delivered' }]);
      expect((await eventsOf(first.id)).map((e) => e.type)).toEqual([
        'deferred',
        'sent',
        'delivered',
      ]);
      // Later events find it by (campaign, subscriber).
      await log.append(pool, accountId, [
        { message: { campaignId: campaign, subscriberId: dee }, type: 'complained' },
      ]);
      expect(await statusOf(first.id)).toBe('complained');
    });
  });

  it('pages newest first over (created_at, id) within the account and its filters', async () => {
    const account = parseAccountId(await ctx.make.account('Pages'));
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await record(`page${i % 2}@example.test`, account));
    await record('elsewhere@example.test', otherId);
    const walk = async (filters = {}) => {
      const seen: string[] = [];
      let afterId: string | undefined;
      for (;;) {
        const rows = await messages.listPage(account, kept, filters, { limit: 2, afterId });
        seen.push(...rows.map((r) => r.id));
        if (rows.length < 2) return seen;
        afterId = rows.at(-1)!.id;
      }
    };
    const { rows: newestFirst } = await pool.query<{ id: string }>(
      'SELECT id::text FROM messages WHERE account_id = $1 ORDER BY created_at DESC, id DESC',
      [account],
    );
    expect(newestFirst.map((r) => r.id).sort()).toEqual([...ids].sort());
    expect(await walk()).toEqual(newestFirst.map((r) => r.id));
    const hash = await hashOf('page1@example.test', account);
    const toPage1 = newestFirst.map((r) => r.id).filter((id) => [ids[1], ids[3]].includes(id));
    expect(await walk({ recipientHash: hash })).toEqual(toPage1);
    expect(await walk({ status: 'delivered' })).toEqual([]);
    expect(await walk({ source: 'campaign' })).toEqual([]);
    expect(await walk({ since: new Date(Date.now() + 60_000) })).toEqual([]);
  });

  const hashOf = async (recipient: string, account: AccountId) => {
    const { rows } = await pool.query<{ recipient_hash: string }>(
      'SELECT recipient_hash FROM messages WHERE account_id = $1 AND recipient = $2 LIMIT 1',
      [account, recipient],
    );
    return rows[0].recipient_hash;
  };

  it('erases the identity’s address, subject, hash and event texts, nothing else', async () => {
    const gone = await record('gone@example.test');
    const stays = await record('stays@example.test');
    await log.append(pool, accountId, [
      { message: { messageId: gone }, type: 'bounced', reason: '550 <gone@example.test> unknown' },
      { message: { messageId: stays }, type: 'bounced', reason: '550 unknown' },
    ]);
    const hash = await hashOf('gone@example.test', accountId);
    await messages.erase(pool, accountId, hash, undefined);
    expect(await messages.find(accountId, gone, kept)).toMatchObject({
      recipient: null,
      subject: null,
    });
    expect((await eventsOf(gone))[0].reason).toBeNull();
    expect(await messages.find(accountId, stays, kept)).toMatchObject({
      recipient: 'stays@example.test',
    });
    expect((await eventsOf(stays))[0].reason).toBe('550 unknown');
    const { rows } = await pool.query('SELECT 1 FROM messages WHERE recipient_hash = $1', [hash]);
    expect(rows).toEqual([]);
  });

  it('erases by subscriber too, reading only that identity’s messages however many there are', async () => {
    // Many messages of other people, so a plan that reads the table shows in its counts.
    await pool.query(
      `INSERT INTO messages (id, account_id, source, subscriber_id, recipient, recipient_hash,
                             from_address, subject, status)
       SELECT id, $1, 'campaign', gen_random_uuid(), 'p' || i || '@example.test',
              md5(i::text), 'news@acme.test', 'News', 'delivered'
         FROM unnest($2::uuid[]) WITH ORDINALITY AS t(id, i)`,
      [accountId, Array.from({ length: 5000 }, () => newId())],
    );
    await pool.query('ANALYZE messages');
    const subscriberId = newId();
    // Sent to an address the subscriber has changed since: only the subscriber id finds it.
    const before = newId();
    await log.record(pool, accountId, {
      id: before,
      source: 'campaign',
      subscriberId,
      recipient: 'old-address@example.test',
      from: 'news@acme.test',
      subject: 'News',
    });
    const hash = ctx.get(ErasureGuard).emailHash(accountId, 'new-address@example.test');

    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${sql.ERASE_MESSAGES}`,
        [accountId, hash, subscriberId],
      );
      const visited = rowsVisited(rows[0]['QUERY PLAN'][0].Plan, 'messages');
      expect(visited).toBeLessThanOrEqual(2);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }

    await messages.erase(pool, accountId, hash, subscriberId);
    expect(await messages.find(accountId, before, kept)).toMatchObject({
      subscriber_id: subscriberId,
      recipient: null,
      subject: null,
    });
  });

  it('deletes expired messages and their events in bounded batches, by id range', async () => {
    const old = newId(Date.now() - 10 * 86_400_000);
    await record('old@example.test', accountId, old);
    await log.append(pool, accountId, [{ message: { messageId: old }, type: 'sent' }]);
    const fresh = await record('fresh@example.test');
    const boundary = firstIdOf(new Date(Date.now() - 86_400_000));
    expect(old < boundary && boundary < fresh).toBe(true);
    for (;;) {
      const deleted = await messages.deleteExpired(boundary, 1);
      if (deleted.messages === 0 && deleted.events === 0) break;
    }
    expect(await messages.find(accountId, old, kept)).toBeNull();
    expect(await eventsOf(old)).toEqual([]);
    expect(await messages.find(accountId, fresh, kept)).not.toBeNull();
  });
});
