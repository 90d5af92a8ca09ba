import { CampaignEvents } from '../../src/campaigns/core/campaign-events';
import { newId } from '../../src/platform/crypto/ids';
import { AccountId, parseAccountId } from '../../src/platform/database/account-id';
import { PgPool } from '../../src/platform/database/pg-pool';
import { MailEventSubjects } from '../../src/stats/mail-event-subjects';
import { bulkWriteEvents } from '../../src/subscribers/subscriber-events';
import { TransactionalMessagesRepository } from '../../src/transactional/transactional-messages.repository';
import { TransactionalOutcomes } from '../../src/transactional/transactional-outcomes';
import { WebhookEndpointsRepository } from '../../src/webhooks/webhook-endpoints.repository';
import { TestContext } from '../support/test-context';
import { TestEnv } from '../support/test-env';

/**
 * The reads that give outbound events their subjects, through the lookups each owning module
 * registers and the events it publishes, on PostgreSQL: subscriber-subjects.sql.ts,
 * campaign-events.sql.ts and transactional-events.sql.ts. Each finds its row by account and
 * id: a payload never shows another account's subscriber, campaign or message.
 */
describe('event subject reads', () => {
  let env: TestEnv;
  let ctx: TestContext;
  let subjects: MailEventSubjects;
  let pool: PgPool;
  let accountId: AccountId;
  let otherId: AccountId;

  beforeAll(async () => {
    env = await TestEnv.create();
    ctx = await TestContext.start(env);
    subjects = ctx.get(MailEventSubjects);
    pool = ctx.get(PgPool);
    accountId = parseAccountId(await ctx.make.account('Subjects'));
    otherId = parseAccountId(await ctx.make.account('Other subjects'));
  });
  afterAll(async () => {
    await ctx?.close();
    await env?.dispose();
  });

  describe('subscriber-subjects.sql', () => {
    it('reads addresses and subscribers of the account only', async () => {
      const a = await ctx.make.subscriber(accountId, { email: 'Ann@Example.test' });
      const b = await ctx.make.subscriber(accountId, { firstName: 'Bo' });
      const theirs = await ctx.make.subscriber(otherId);

      const emails = await subjects.get('subscriberEmails')(pool, accountId, [
        a.id,
        b.id,
        theirs.id,
        newId(),
      ]);
      expect(emails).toEqual(
        new Map([
          [a.id, 'Ann@Example.test'],
          [b.id, b.email],
        ]),
      );
      expect(await subjects.get('subscriber')(ctx.prisma, accountId, b.id)).toMatchObject({
        id: b.id,
        email: b.email,
        first_name: 'Bo',
      });
      expect(await subjects.get('subscriber')(pool, accountId, theirs.id)).toBeNull();
    });

    it('finds a subscriber by its normalised address within the account', async () => {
      const a = await ctx.make.subscriber(accountId, {
        email: 'Casey@Example.test',
        emailNormalized: 'casey@example.test',
      });
      await ctx.make.subscriber(otherId, {
        email: 'Dana@Example.test',
        emailNormalized: 'dana@example.test',
      });
      const byEmail = subjects.get('subscriberIdByEmail');
      expect(await byEmail(pool, accountId, ' CASEY@example.TEST ')).toBe(a.id);
      expect(await byEmail(pool, otherId, 'casey@example.test')).toBeNull();
      expect(await byEmail(pool, accountId, 'dana@example.test')).toBeNull();
    });

    it('makes a bulk write’s events from the account’s rows as written', async () => {
      const created = await ctx.make.subscriber(accountId);
      const updated = await ctx.make.subscriber(accountId);
      const theirs = await ctx.make.subscriber(otherId);
      const events = await bulkWriteEvents(
        pool,
        accountId,
        [
          { position: 0, status: 'created', id: created.id },
          { position: 1, status: 'updated', id: updated.id },
          { position: 2, status: 'updated', id: theirs.id },
        ],
        new Set(['subscriber.created', 'subscriber.updated']),
        'changes',
      );
      expect(events.map((e) => [e.type, (e.data as { id: string }).id]).sort()).toEqual(
        [
          ['subscriber.created', created.id],
          ['subscriber.updated', updated.id],
        ].sort(),
      );
    });

    it('announces a change to unsubscribed only while the row still reads unsubscribed', async () => {
      const left = await ctx.make.subscriber(accountId, { status: 'unsubscribed' });
      const back = await ctx.make.subscriber(accountId);
      const edited = await ctx.make.subscriber(accountId);
      const outcomes = [
        { position: 0, status: 'updated' as const, id: left.id, unsubscribed: true },
        // Unsubscribed by one item, subscribed again by a later one: no change to announce.
        { position: 1, status: 'updated' as const, id: back.id, unsubscribed: true },
        { position: 2, status: 'updated' as const, id: edited.id },
      ];
      const every = new Set(['subscriber.updated', 'subscriber.unsubscribed']);
      const types = async (announce: 'changes' | 'unsubscribes', wanted = every) =>
        (await bulkWriteEvents(pool, accountId, outcomes, wanted, announce))
          .map((e) => [e.type, (e.data as { id: string }).id])
          .sort();
      expect(await types('unsubscribes')).toEqual([['subscriber.unsubscribed', left.id]]);
      expect(await types('changes')).toEqual(
        [
          ['subscriber.unsubscribed', left.id],
          ['subscriber.updated', left.id],
          ['subscriber.updated', back.id],
          ['subscriber.updated', edited.id],
        ].sort(),
      );
      expect(await types('unsubscribes', new Set(['subscriber.updated']))).toEqual([]);
    });
  });

  describe('campaign-events.sql', () => {
    it('gives a campaign’s name and From only to its account', async () => {
      const campaign = await ctx.make.campaign(accountId, {
        name: 'Spring',
        fromAddress: 'news@acme.test',
      });
      const lookup = subjects.get('campaign');
      expect(await lookup(pool, accountId, campaign.id)).toEqual({
        name: 'Spring',
        fromAddress: 'news@acme.test',
      });
      expect(await lookup(ctx.prisma, otherId, campaign.id)).toBeNull();
    });

    it('publishes a status change with the campaign as it is, in its account only', async () => {
      const endpoints = ctx.get(WebhookEndpointsRepository);
      for (const owner of [accountId, otherId]) {
        await endpoints.create(
          owner,
          newId(),
          { url: 'https://hooks.example.test/in', events: ['campaign.sent'], description: null },
          'sealed-secret',
        );
      }
      const campaign = await ctx.make.campaign(accountId, { name: 'Summer', status: 'sent' });
      const batchesOf = (owner: AccountId) =>
        env.sql<{ events: string }>(
          'SELECT events FROM webhook_event_batches WHERE account_id = $1',
          [owner],
        );

      const events = ctx.get(CampaignEvents);
      await events.statusChanged(otherId, campaign.id, 'campaign.sent');
      expect(await batchesOf(otherId)).toEqual([]);
      await events.statusChanged(accountId, campaign.id, 'campaign.sent');
      const [batch] = await batchesOf(accountId);
      const [event] = JSON.parse(batch.events) as { type: string; payload: string }[];
      expect(event.type).toBe('campaign.sent');
      expect((JSON.parse(event.payload) as { data: unknown }).data).toEqual({
        id: campaign.id,
        name: 'Summer',
        status: 'sent',
      });
    });
  });

  describe('transactional-events.sql', () => {
    it('gives a message’s Message-ID and recipient only to its account', async () => {
      const messages = ctx.get(TransactionalMessagesRepository);
      const id = newId();
      await messages.create(
        accountId,
        {
          id,
          apiKeyId: null,
          templateId: null,
          recipientHash: newId(),
          toAddress: 'reader@example.test',
          fromAddress: 'shop@acme.test',
          subject: 'Receipt',
          html: null,
          text: 'Thanks',
        },
        ctx.prisma,
      );
      const lookup = subjects.get('transactional');
      const before = await lookup(pool, accountId, id);
      // Known before sending: it is derived from the id and the From.
      expect(before).toEqual({
        messageId: expect.stringContaining('acme.test'),
        email: 'reader@example.test',
      });
      expect(await lookup(pool, otherId, id)).toBeNull();

      const claim = (await messages.claim(accountId, id, 60_000))!;
      await ctx
        .get(TransactionalOutcomes)
        .sent(claim, '<relay-chosen@acme.test>', claim.toAddress!);
      expect(await lookup(ctx.prisma, accountId, id)).toEqual({
        messageId: '<relay-chosen@acme.test>',
        email: 'reader@example.test',
      });
    });
  });
});
