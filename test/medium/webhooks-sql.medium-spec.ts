import { newId } from '../../src/platform/crypto/ids';
import { AccountId, parseAccountId } from '../../src/platform/database/account-id';
import { PgPool } from '../../src/platform/database/pg-pool';
import {
  DeliveryResult,
  WebhookDeliveriesRepository,
} from '../../src/webhooks/webhook-deliveries.repository';
import { WebhookEndpointsRepository } from '../../src/webhooks/webhook-endpoints.repository';
import {
  ClaimedBatch,
  WebhookEventBatchesRepository,
} from '../../src/webhooks/webhook-event-batches.repository';
import { WebhookPublisher } from '../../src/webhooks/webhook-publisher';
import { TestContext } from '../support/test-context';
import { TestEnv } from '../support/test-env';

/**
 * The statements of webhooks.sql.ts through the publisher and the two repositories on
 * PostgreSQL: a published batch is claimed once under a lease, its first attempts become
 * delivery rows, due rows are claimed for their retry and their results written, and erasure,
 * manual retries and pruning do what the delivery log promises.
 */
describe('webhooks.sql', () => {
  let env: TestEnv;
  let ctx: TestContext;
  let pool: PgPool;
  let publisher: WebhookPublisher;
  let endpoints: WebhookEndpointsRepository;
  let batches: WebhookEventBatchesRepository;
  let deliveries: WebhookDeliveriesRepository;
  let accountId: AccountId;
  let endpointId: string;

  beforeAll(async () => {
    env = await TestEnv.create();
    ctx = await TestContext.start(env);
    pool = ctx.get(PgPool);
    publisher = ctx.get(WebhookPublisher);
    endpoints = ctx.get(WebhookEndpointsRepository);
    batches = ctx.get(WebhookEventBatchesRepository);
    deliveries = ctx.get(WebhookDeliveriesRepository);
    accountId = parseAccountId(await ctx.make.account('Hooks'));
    endpointId = newId();
    await endpoints.create(
      accountId,
      endpointId,
      { url: 'https://hooks.example.test/in', events: ['subscriber.created'], description: null },
      'sealed-secret',
    );
  });
  afterAll(async () => {
    await ctx?.close();
    await env?.dispose();
  });

  async function publish(subscriberId: string | null = null, recipientHash: string | null = null) {
    publisher.forget(accountId);
    await publisher.publish(pool, accountId, [
      {
        type: 'subscriber.created',
        occurredAt: new Date(),
        data: { id: subscriberId },
        subscriberId,
        recipientHash,
      },
    ]);
  }

  /** Claims every batch that is claimable now. */
  async function claimAll(): Promise<ClaimedBatch[]> {
    return batches.claimAcrossAccounts(1000);
  }

  function firstResult(batch: ClaimedBatch, ok: boolean, nextAttemptAt: Date | null) {
    const event = batch.events[0];
    const [deliveryId, endpoint] = event.deliveries[0];
    return {
      id: deliveryId,
      endpointId: endpoint,
      ok,
      status: ok ? 200 : 503,
      latencyMs: 12,
      error: ok ? null : 'HTTP 503',
      nextAttemptAt,
      first: {
        batchId: batch.id,
        accountId: batch.accountId,
        eventId: event.event_id,
        type: event.type,
        payload: event.payload,
        subscriberId: event.subscriber_id,
        recipientHash: event.recipient_hash,
        createdAt: batch.createdAt,
        attempts: 1,
      },
    } satisfies DeliveryResult;
  }

  it('claims a published batch once while its lease holds, and again once released', async () => {
    await publish();
    const [claimed] = await claimAll();
    expect(claimed).toMatchObject({ accountId, pending: expect.any(Set) });
    expect(claimed.events[0].deliveries[0][1]).toBe(endpointId);
    expect(await claimAll()).toEqual([]);
    await batches.renew([claimed.id]);
    expect(await claimAll()).toEqual([]);
    await batches.release([claimed.id]);
    const again = await claimAll();
    expect(again.map((batch) => batch.id)).toEqual([claimed.id]);
    const known = await batches.endpointsAcrossAccounts([endpointId, newId()]);
    expect([...known.keys()]).toEqual([endpointId]);
    expect(known.get(endpointId)).toMatchObject({ enabled: true, secretSealed: 'sealed-secret' });
    await batches.release([claimed.id]);
  });

  it('writes a first attempt as a delivery row, claims it when due, and records its success', async () => {
    const subscriberId = newId();
    await publish(subscriberId);
    const [batch] = await claimAll();
    const failed = firstResult(batch, false, new Date(Date.now() - 1000));
    expect(await deliveries.writeResults([failed])).toEqual([]);
    // Every delivery of the batch is written: nothing is left to claim.
    expect(await claimAll()).toEqual([]);
    const stored = await deliveries.find(accountId, endpointId, failed.id);
    expect(stored).toMatchObject({ status: 'pending', attempts: 1, lastError: 'HTTP 503' });

    const due = await deliveries.claimDueAcrossAccounts(10);
    expect(due).toEqual([
      expect.objectContaining({ id: failed.id, accountId, endpointId, attempts: 2 }),
    ]);
    // Claimed: its next attempt moved out by the lease, so no one else takes it.
    expect(await deliveries.claimDueAcrossAccounts(10)).toEqual([]);
    await deliveries.writeResults([
      {
        id: failed.id,
        endpointId,
        ok: true,
        status: 204,
        latencyMs: 8,
        error: null,
        nextAttemptAt: null,
      },
    ]);
    expect(await deliveries.find(accountId, endpointId, failed.id)).toMatchObject({
      status: 'succeeded',
      responseStatus: 204,
      nextAttemptAt: null,
    });

    // A manual retry makes it due again, however it ended.
    expect(await deliveries.retryNow(accountId, endpointId, failed.id)).toBe(true);
    expect((await deliveries.claimDueAcrossAccounts(10)).map((d) => d.id)).toEqual([failed.id]);
    await deliveries.writeResults([
      {
        id: failed.id,
        endpointId,
        ok: false,
        status: 500,
        latencyMs: 1,
        error: 'x',
        nextAttemptAt: null,
      },
    ]);
    expect((await deliveries.find(accountId, endpointId, failed.id))!.status).toBe('failed');
  });

  it('withholds an erased person’s events not yet attempted, and strips attempted ones', async () => {
    const erased = newId();
    await publish(erased);
    const [attemptedBatch] = await claimAll();
    const attempted = firstResult(attemptedBatch, false, new Date(Date.now() + 3_600_000));
    await deliveries.writeResults([attempted]);
    await publish(erased);
    await publish(newId());

    await ctx.prisma.$transaction(async (tx) => {
      await batches.scrub(tx, accountId, erased, 'no-such-hash');
      await deliveries.scrub(tx, accountId, erased, 'no-such-hash');
    });

    const left = await claimAll();
    const subjects = left.flatMap((batch) => batch.events.map((event) => event.subscriber_id));
    expect(subjects).not.toContain(erased);
    expect(left).toHaveLength(1);
    const stripped = await deliveries.find(accountId, endpointId, attempted.id);
    expect(stripped).toMatchObject({ payload: null });
    expect(await deliveries.retryNow(accountId, endpointId, attempted.id)).toBe(false);
    await batches.release(left.map((batch) => batch.id));
  });

  it('prunes finished deliveries past their days, across accounts, and keeps pending ones', async () => {
    await ctx.prisma.$executeRaw`
      UPDATE webhook_deliveries SET created_at = now() - interval '40 days'`;
    const pendingBefore = await ctx.prisma.webhookDelivery.count({ where: { status: 'pending' } });
    const pruned = await deliveries.pruneFinishedAcrossAccounts(30, 1000);
    expect(pruned).toBeGreaterThanOrEqual(1);
    expect(await ctx.prisma.webhookDelivery.count({ where: { status: { not: 'pending' } } })).toBe(
      0,
    );
    expect(await ctx.prisma.webhookDelivery.count({ where: { status: 'pending' } })).toBe(
      pendingBefore,
    );
  });
});
