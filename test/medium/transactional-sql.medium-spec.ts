import { newId } from '../../src/platform/crypto/ids';
import { AccountId, parseAccountId } from '../../src/platform/database/account-id';
import { IdempotencyKeysRepository } from '../../src/transactional/idempotency-keys.repository';
import { ERASED } from '../../src/transactional/transactional.sql';
import {
  ClaimedMessage,
  TransactionalMessagesRepository,
} from '../../src/transactional/transactional-messages.repository';
import { TransactionalOutcomes } from '../../src/transactional/transactional-outcomes';
import { TestContext } from '../support/test-context';
import { TestEnv } from '../support/test-env';

/**
 * The statements of transactional.sql.ts through their repositories on PostgreSQL: the claim
 * and its fencing number, leases that lapse and are taken over, the sweep's requeue, erasure's
 * scrub, and the Idempotency-Key claim, completion, release and pruning.
 */
describe('transactional.sql', () => {
  let env: TestEnv;
  let ctx: TestContext;
  let messages: TransactionalMessagesRepository;
  let outcomes: TransactionalOutcomes;
  let keys: IdempotencyKeysRepository;
  let accountId: AccountId;
  const LEASE_MS = 60_000;

  beforeAll(async () => {
    env = await TestEnv.create();
    ctx = await TestContext.start(env);
    messages = ctx.get(TransactionalMessagesRepository);
    outcomes = ctx.get(TransactionalOutcomes);
    keys = ctx.get(IdempotencyKeysRepository);
    accountId = parseAccountId(await ctx.make.account('Transactional'));
  });
  afterAll(async () => {
    await ctx?.close();
    await env?.dispose();
  });

  /** The worker's outcome write for a 250 under `claim`: whether it was still this claim's. */
  const recordSent = (claim: ClaimedMessage, headerMessageId: string) =>
    outcomes.sent(claim, headerMessageId, claim.toAddress!);

  async function queued(to = `${newId()}@example.test`, recipientHash = newId()) {
    const id = newId();
    await messages.create(
      accountId,
      {
        id,
        apiKeyId: null,
        templateId: null,
        recipientHash,
        toAddress: to,
        fromAddress: 'shop@acme.test',
        subject: 'Receipt',
        html: '<p>Thanks</p>',
        text: 'Thanks',
      },
      ctx.prisma,
    );
    return id;
  }

  const statusOf = async (id: string) => (await messages.findById(accountId, id))!;

  it('claims a queued message once; a second claim gets nothing while the lease holds', async () => {
    const id = await queued();
    const claim = await messages.claim(accountId, id, LEASE_MS);
    expect(claim).toMatchObject({ id, accountId, attempts: 1, subject: 'Receipt' });
    expect(await messages.claim(accountId, id, LEASE_MS)).toBeUndefined();
    expect(await messages.leaseRemainingMs(accountId, id)).toBeGreaterThan(LEASE_MS / 2);
    expect((await statusOf(id)).status).toBe('sending');
  });

  it('hands a lapsed claim to the next worker, and fences the first one out', async () => {
    const id = await queued();
    const first = (await messages.claim(accountId, id, 0))!;
    const second = (await messages.claim(accountId, id, LEASE_MS))!;
    expect(second.attempts).toBe(first.attempts + 1);
    expect(await messages.renewLease(first, LEASE_MS)).toBe(false);
    expect(await messages.renewLease(second, LEASE_MS)).toBe(true);
    expect(await recordSent(first, '<first@herald>')).toBe(false);
    expect(await recordSent(second, '<second@herald>')).toBe(true);
    const row = await statusOf(id);
    expect(row).toMatchObject({ status: 'sent', headerMessageId: '<second@herald>' });
    expect(row.leaseUntil).toBeNull();
    expect(await messages.leaseRemainingMs(accountId, id)).toBeUndefined();
  });

  it('releases to the queue, defers with a growing wait, and fails only while it holds', async () => {
    const id = await queued();
    const claim = (await messages.claim(accountId, id, LEASE_MS))!;
    await messages.release(claim, 'database away');
    expect(await statusOf(id)).toMatchObject({ status: 'queued', error: 'database away' });

    const again = (await messages.claim(accountId, id, LEASE_MS))!;
    const policy = { firstSeconds: 60, maxSeconds: 3600 };
    const wait = await messages.defer(again, '451 try later', policy);
    // The second claim waits twice the first wait.
    expect(wait).toBeGreaterThan(110_000);
    expect(wait).toBeLessThan(120_001); // the delay is read back as float seconds
    const deferred = await statusOf(id);
    expect(deferred.status).toBe('queued');
    expect(deferred.deferredSince).not.toBeNull();
    expect(await messages.defer(again, 'stale', policy)).toBeUndefined();

    expect(await messages.markFailed({ accountId, id }, 'stale claim', ctx.prisma, 1)).toBe(false);
    expect(await messages.markFailed({ accountId, id }, '550 no such user', ctx.prisma)).toBe(true);
    expect(await messages.markFailed({ accountId, id }, 'twice', ctx.prisma)).toBe(false);
    expect(await statusOf(id)).toMatchObject({ status: 'failed', error: '550 no such user' });
  });

  it('finds, across accounts, lapsed claims and queued messages whose job may be lost', async () => {
    const other = parseAccountId(await ctx.make.account('Other'));
    const lapsedId = await queued();
    await messages.claim(accountId, lapsedId, 0);
    const waitingId = newId();
    await messages.create(
      other,
      {
        id: waitingId,
        apiKeyId: null,
        templateId: null,
        recipientHash: newId(),
        toAddress: 'someone@other.test',
        fromAddress: 'shop@other.test',
        subject: 'Hi',
        html: null,
        text: 'Hi',
      },
      ctx.prisma,
    );
    const found = await messages.findStrandedAcrossAccounts(0, 1000);
    expect(found).toEqual(
      expect.arrayContaining([
        { accountId, id: lapsedId },
        { accountId: other, id: waitingId },
      ]),
    );
    expect((await statusOf(lapsedId)).status).toBe('queued');
  });

  it('scrubs every personal column of an erased recipient, and its message never goes', async () => {
    const hash = newId();
    const pending = await queued('erased@example.test', hash);
    const sent = await queued('erased@example.test', hash);
    const claim = (await messages.claim(accountId, sent, LEASE_MS))!;
    await recordSent(claim, '<sent@herald>');
    const inFlight = await queued('erased@example.test', hash);
    const flying: ClaimedMessage = (await messages.claim(accountId, inFlight, LEASE_MS))!;

    await messages.scrubRecipient(accountId, hash, ctx.prisma);

    expect(await statusOf(pending)).toMatchObject({
      status: 'failed',
      error: ERASED,
      toAddress: null,
      subject: null,
      html: null,
      text: null,
    });
    expect(await statusOf(sent)).toMatchObject({ status: 'sent', toAddress: null });
    expect(await messages.findSent(sent)).toBeNull();
    expect(await messages.claim(accountId, pending, LEASE_MS)).toBeUndefined();
    // The worker holding a claim is told on its next write: the message ends, unsent.
    await messages.release(flying, 'relay away');
    expect(await statusOf(inFlight)).toMatchObject({ status: 'failed', error: ERASED });
  });

  it('reads back the latest message sent to a recipient, by account and hash', async () => {
    const hash = newId();
    const id = await queued('reader@example.test', hash);
    const claim = (await messages.claim(accountId, id, LEASE_MS))!;
    await recordSent(claim, '<latest@herald>');
    expect(await messages.findSent(id)).toEqual({ accountId, toAddress: 'reader@example.test' });
    expect(await messages.latestSentTo([{ accountId, recipientHash: hash }], 1)).toMatchObject({
      id,
    });
    expect(await messages.latestSentTo([{ accountId, recipientHash: newId() }], 1)).toBeNull();
  });

  describe('idempotency keys', () => {
    it('claims a key once; a repeat sees the first claim, then its stored response', async () => {
      const token = newId();
      expect(await keys.claim(accountId, 'order-1', 'fp-a', token)).toEqual({ claimed: true });
      expect(await keys.claim(accountId, 'order-1', 'fp-a', newId())).toEqual({
        claimed: false,
        held: { fingerprint: 'fp-a', response: undefined },
      });
      const response = { status: 202, body: { id: token, status: 'queued' } };
      expect(await keys.complete(accountId, 'order-1', newId(), response, ctx.prisma)).toBe(false);
      expect(await keys.complete(accountId, 'order-1', token, response, ctx.prisma)).toBe(true);
      expect(await keys.claim(accountId, 'order-1', 'fp-b', newId())).toEqual({
        claimed: false,
        held: { fingerprint: 'fp-a', response },
      });
    });

    it('frees a released key at once, and keeps keys of other accounts apart', async () => {
      const other = parseAccountId(await ctx.make.account('Keys elsewhere'));
      const token = newId();
      await keys.claim(accountId, 'order-2', 'fp', token);
      expect(await keys.claim(other, 'order-2', 'fp', newId())).toEqual({ claimed: true });
      await keys.release(accountId, 'order-2', newId());
      expect((await keys.claim(accountId, 'order-2', 'fp', newId())).claimed).toBe(false);
      await keys.release(accountId, 'order-2', token);
      expect(await keys.claim(accountId, 'order-2', 'fp', newId())).toEqual({ claimed: true });
    });

    it('prunes expired keys across accounts and forgets those of an erased recipient', async () => {
      const expired = newId();
      await keys.claim(accountId, 'old', 'fp', expired);
      await ctx.prisma.$executeRaw`
        UPDATE idempotency_keys SET expires_at = now() - interval '1 second'
         WHERE message_id = ${expired}::uuid`;
      expect(await keys.pruneExpiredAcrossAccounts(1000)).toBeGreaterThanOrEqual(1);
      expect(await keys.claim(accountId, 'old', 'other-fp', newId())).toEqual({ claimed: true });

      const hash = newId();
      const messageId = await queued('forget@example.test', hash);
      await keys.claim(accountId, 'forget-me', 'fp', messageId);
      await keys.forgetMessagesTo(accountId, hash, ctx.prisma);
      expect(await keys.claim(accountId, 'forget-me', 'fp2', newId())).toEqual({ claimed: true });
    });
  });
});
