import { FeedbackRepository } from '../../src/feedback/feedback.repository';
import type { LocatedMessage } from '../../src/feedback/sent-message-lookup';
import type { FeedbackKind, FeedbackReport } from '../../src/message-refs/feedback-report';
import { messageKey } from '../../src/message-refs/message-ref';
import { newId } from '../../src/platform/crypto/ids';
import { AccountId, parseAccountId } from '../../src/platform/database/account-id';
import { TestContext } from '../support/test-context';
import { TestEnv } from '../support/test-env';
import { latch, waitFor } from '../support/wait-for';

/**
 * The statements of feedback.sql.ts through FeedbackRepository on PostgreSQL: a report is
 * recorded once per source and event key, "seen before" is asked per account and kind, and
 * the lock on a message makes a second report about it wait for the first one's verdict.
 */
describe('feedback.sql', () => {
  let env: TestEnv;
  let ctx: TestContext;
  let feedback: FeedbackRepository;
  let accountId: AccountId;
  let otherId: AccountId;

  beforeAll(async () => {
    env = await TestEnv.create();
    ctx = await TestContext.start(env);
    feedback = ctx.get(FeedbackRepository);
    accountId = parseAccountId(await ctx.make.account('Feedback'));
    otherId = parseAccountId(await ctx.make.account('Other feedback'));
  });
  afterAll(async () => {
    await ctx?.close();
    await env?.dispose();
  });

  function message(owner: AccountId = accountId) {
    const transactionalMessageId = newId();
    const located: LocatedMessage = {
      accountId: owner,
      emailNormalized: 'reader@example.test',
      subscriberId: null,
      campaignId: null,
      transactionalMessageId,
      refusedAtSending: false,
    };
    const key = messageKey({ kind: 'transactional', messageId: transactionalMessageId });
    return { located, key };
  }

  const report = (kind: FeedbackKind, eventKey = newId()): FeedbackReport => ({
    source: 'dsn',
    eventKey,
    kind,
    message: { kind: 'transactional', messageId: newId() },
    statusCode: '5.1.1',
  });

  const seen = (owner: AccountId, key: string, kind: FeedbackKind) =>
    feedback.transaction((tx) => feedback.seen(tx, owner, key, kind));

  it('records a report once per source and event key, with what it is about', async () => {
    const { located, key } = message();
    const first = report('hard_bounce');
    expect(await feedback.transaction((tx) => feedback.record(tx, located, first, key))).toBe(true);
    expect(await feedback.transaction((tx) => feedback.record(tx, located, first, key))).toBe(
      false,
    );
    // Another source may use the same key for its own event.
    const fromSes = { ...first, source: 'ses' as const };
    expect(await feedback.transaction((tx) => feedback.record(tx, located, fromSes, key))).toBe(
      true,
    );
    const rows = await env.sql(
      `SELECT account_id, source, kind, message_key, transactional_message_id, status_code
         FROM delivery_feedback WHERE message_key = $1 ORDER BY source`,
      [key],
    );
    expect(rows).toEqual([
      {
        account_id: accountId,
        source: 'dsn',
        kind: 'hard_bounce',
        message_key: key,
        transactional_message_id: located.transactionalMessageId,
        status_code: '5.1.1',
      },
      expect.objectContaining({ source: 'ses' }),
    ]);
  });

  it('has seen a kind of report about a message only in the account it was recorded in', async () => {
    const { located, key } = message();
    await feedback.transaction((tx) => feedback.record(tx, located, report('complaint'), key));
    expect(await seen(accountId, key, 'complaint')).toBe(true);
    expect(await seen(accountId, key, 'hard_bounce')).toBe(false);
    expect(await seen(otherId, key, 'complaint')).toBe(false);
    expect(await seen(accountId, message().key, 'complaint')).toBe(false);
  });

  it('makes a second report about the message wait, then see the first one', async () => {
    const { located, key } = message();
    const releaseFirst = latch();
    let firstLocked = false;
    const first = feedback.transaction(async (tx) => {
      await feedback.lockMessage(tx, key);
      firstLocked = true;
      const before = await feedback.seen(tx, accountId, key, 'hard_bounce');
      await releaseFirst.opened;
      await feedback.record(tx, located, report('hard_bounce'), key);
      return before;
    });
    await waitFor(() => firstLocked);
    const second = feedback.transaction(async (tx) => {
      await feedback.lockMessage(tx, key);
      const before = await feedback.seen(tx, accountId, key, 'hard_bounce');
      await feedback.record(tx, located, report('hard_bounce'), key);
      return before;
    });
    await waitFor(async () => {
      const waiting = await env.sql(
        `SELECT 1 FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event = 'advisory'`,
      );
      return waiting.length > 0;
    });
    releaseFirst.open();
    expect(await Promise.all([first, second])).toEqual([false, true]);
  });
});
