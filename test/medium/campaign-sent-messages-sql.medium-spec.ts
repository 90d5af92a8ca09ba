import { CampaignSentMessages } from '../../src/campaigns/ledger/campaign-sent-messages';
import { AccountId, parseAccountId } from '../../src/platform/database/account-id';
import { TestContext } from '../support/test-context';
import { TestEnv } from '../support/test-env';

/**
 * The statements of campaign-sent-messages.sql.ts through CampaignSentMessages on PostgreSQL:
 * a report finds the ledger row of a message that left (not one pending or skipped), with
 * whether the relay refused it then; and the latest message to a subscriber is looked up
 * per (account, subscriber) pair, never matching the same id in another account.
 */
describe('campaign-sent-messages.sql', () => {
  let env: TestEnv;
  let ctx: TestContext;
  let sent: CampaignSentMessages;
  let accountId: AccountId;
  let otherId: AccountId;

  beforeAll(async () => {
    env = await TestEnv.create();
    ctx = await TestContext.start(env);
    sent = ctx.get(CampaignSentMessages);
    accountId = parseAccountId(await ctx.make.account('Sent'));
    otherId = parseAccountId(await ctx.make.account('Other sent'));
  });
  afterAll(async () => {
    await ctx?.close();
    await env?.dispose();
  });

  /** A ledger row as the send leaves it. */
  async function recipient(
    owner: AccountId,
    campaignId: string,
    subscriberId: string,
    status: string,
    { smtpCode = null as number | null, sentAgo = null as string | null } = {},
  ) {
    await env.sql(
      `INSERT INTO campaign_recipients
         (campaign_id, subscriber_id, account_id, batch, status, smtp_code, sent_at)
       VALUES ($1, $2, $3, 0, $4::recipient_status, $5,
               CASE WHEN $6::interval IS NULL THEN NULL ELSE now() - $6::interval END)`,
      [campaignId, subscriberId, owner, status, smtpCode, sentAgo],
    );
  }

  it('finds a message that left, with whether the relay refused it then', async () => {
    const campaign = await ctx.make.campaign(accountId);
    const [ok, refused, deferredLater, pending, skipped] = await Promise.all(
      [1, 2, 3, 4, 5].map(async () => (await ctx.make.subscriber(accountId)).id),
    );
    await recipient(accountId, campaign.id, ok, 'sent', { smtpCode: 250, sentAgo: '1 minute' });
    await recipient(accountId, campaign.id, refused, 'failed', {
      smtpCode: 550,
      sentAgo: '1 minute',
    });
    await recipient(accountId, campaign.id, deferredLater, 'failed', { smtpCode: 451 });
    await recipient(accountId, campaign.id, pending, 'pending');
    await recipient(accountId, campaign.id, skipped, 'skipped');

    expect(await sent.find(campaign.id, ok)).toEqual({
      accountId,
      refusedAtSending: false,
      sentAt: expect.any(Date),
    });
    expect(await sent.find(campaign.id, refused)).toMatchObject({ refusedAtSending: true });
    // A 4xx that outlasted its retries was never refused for good by the relay.
    expect(await sent.find(campaign.id, deferredLater)).toMatchObject({
      refusedAtSending: false,
      sentAt: null,
    });
    expect(await sent.find(campaign.id, pending)).toBeNull();
    expect(await sent.find(campaign.id, skipped)).toBeNull();
  });

  it('finds the latest message to a subscriber within the days asked, in its own account', async () => {
    const older = await ctx.make.campaign(accountId);
    const newer = await ctx.make.campaign(accountId);
    const subscriber = (await ctx.make.subscriber(accountId)).id;
    await recipient(accountId, older.id, subscriber, 'sent', { sentAgo: '3 days' });
    await recipient(accountId, newer.id, subscriber, 'sent', { sentAgo: '1 hour' });

    expect(await sent.latestTo([{ accountId, subscriberId: subscriber }], 7)).toEqual({
      campaignId: newer.id,
      subscriberId: subscriber,
      sentAt: expect.any(Date),
    });
    await env.sql(
      `UPDATE campaign_recipients SET sent_at = now() - interval '10 days'
        WHERE campaign_id = $1`,
      [newer.id],
    );
    expect(await sent.latestTo([{ accountId, subscriberId: subscriber }], 7)).toMatchObject({
      campaignId: older.id,
    });
    expect(await sent.latestTo([{ accountId, subscriberId: subscriber }], 1)).toBeNull();
    // The pair is (account, subscriber): the same id under another account matches nothing.
    expect(await sent.latestTo([{ accountId: otherId, subscriberId: subscriber }], 7)).toBeNull();
  });

  it('looks among several subscribers, each paired with its own account', async () => {
    const mine = await ctx.make.campaign(accountId);
    const theirs = await ctx.make.campaign(otherId);
    const a = (await ctx.make.subscriber(accountId)).id;
    const b = (await ctx.make.subscriber(otherId)).id;
    await recipient(accountId, mine.id, a, 'sent', { sentAgo: '2 hours' });
    await recipient(otherId, theirs.id, b, 'sent', { sentAgo: '1 hour' });
    expect(
      await sent.latestTo(
        [
          { accountId, subscriberId: a },
          { accountId: otherId, subscriberId: b },
        ],
        7,
      ),
    ).toMatchObject({ campaignId: theirs.id, subscriberId: b });
    // Crossed pairs name no message.
    expect(
      await sent.latestTo(
        [
          { accountId: otherId, subscriberId: a },
          { accountId, subscriberId: b },
        ],
        7,
      ),
    ).toBeNull();
  });
});
