import request from 'supertest';
import { waitUntilSent } from '../support/campaign-fixtures';
import { Tenant } from '../support/factories';
import { SmtpSink } from '../support/smtp-sink';
import { TestApi, TestEnv } from '../support/test-env';
import { BROWSER, linksOf, MessageLinks } from '../support/tracking-links';
import { waitFor } from '../support/wait-for';
import { WebhookReceiver } from '../support/webhook-receiver';

const PUBLIC_URL = 'https://herald.acme.test';
const SHOP = 'https://shop.acme.example/spring';
const BLOG = 'https://blog.acme.example/post';
const HITS_PER_PROCESS = 12;

/**
 * A repeated open of one message, or a repeated click of one link in one message, within 60 s
 * of the first counts and publishes once: on the campaign, on the subscriber and as webhook
 * events. The hits arrive at once through two API processes sharing the database and Redis,
 * as behind a load balancer.
 */
describe('repeated opens and clicks', () => {
  let sink: SmtpSink;
  let env: TestEnv;
  let api: TestApi;
  let second: TestApi;
  let tenant: Tenant;
  let receiver: WebhookReceiver;
  let campaignId: string;
  const subscriberIds = new Map<string, string>();

  beforeAll(async () => {
    sink = await SmtpSink.start();
    env = await TestEnv.create({
      SMTP_URL: sink.url,
      ALLOW_UNVERIFIED_FROM: '1',
      PUBLIC_URL,
      RATE_LIMIT: '100000',
      RATE_LIMIT_MAIL_AGENTS: '100000',
      WEBHOOK_ALLOW_PRIVATE: '1',
    });
    api = await TestApi.start(env);
    second = await TestApi.start(env, { workers: false });
    tenant = await api.tenant();
    receiver = await new WebhookReceiver().start();
    const webhook = await request(api.server)
      .post('/v1/webhooks')
      .set('Authorization', tenant.auth)
      .send({ url: receiver.url, events: ['email.opened', 'email.clicked'] })
      .expect(201);
    receiver.secret = webhook.body.secret;
    for (const email of ['ada@example.com', 'bob@example.com']) {
      const created = await request(api.server)
        .post('/v1/subscribers')
        .set('Authorization', tenant.auth)
        .send({ email })
        .expect(201);
      subscriberIds.set(email, created.body.id);
    }
    const campaign = await request(api.server)
      .post('/v1/campaigns')
      .set('Authorization', tenant.auth)
      .send({
        name: 'Spring',
        subject: 'Spring is here',
        from: 'news@acme.test',
        html: `<p><a href="${SHOP}">Shop</a> <a href="${BLOG}">Read</a></p>`,
      })
      .expect(201);
    campaignId = campaign.body.id;
    await request(api.server)
      .post(`/v1/campaigns/${campaignId}/send`)
      .set('Authorization', tenant.auth)
      .expect(202);
    await waitUntilSent(api.server, tenant.auth, campaignId);
    // People read later than the machines that fetch within seconds of delivery.
    await env.sql(
      `UPDATE campaign_recipients SET sent_at = sent_at - interval '10 minutes' WHERE campaign_id = $1`,
      [campaignId],
    );
  }, 90_000);

  afterAll(async () => {
    await receiver?.stop();
    await second?.close();
    await api?.close();
    await env?.dispose();
    await sink?.close();
  });

  const links = (email: string): MessageLinks =>
    linksOf(
      sink.messages.find((m) => m.to[0] === email)!,
      PUBLIC_URL,
    );
  const link = (of: MessageLinks, target: string) => of.clicks.find((c) => c.target === target)!;
  /** The same request many times at once, half through each API process. */
  const hammer = async (path: string, status: number) => {
    const hits = [api, second].flatMap((process) =>
      Array.from({ length: HITS_PER_PROCESS }, () =>
        request(process.server).get(path).set('User-Agent', BROWSER).expect(status),
      ),
    );
    await Promise.all(hits);
  };
  const campaignStats = async (): Promise<Record<string, unknown>> =>
    (
      await request(api.server)
        .get(`/v1/campaigns/${campaignId}/stats`)
        .set('Authorization', tenant.auth)
        .expect(200)
    ).body as Record<string, unknown>;
  const subscriberStats = async (email: string): Promise<Record<string, unknown>> =>
    (
      await request(api.server)
        .get(`/v1/subscribers/${subscriberIds.get(email)}`)
        .set('Authorization', tenant.auth)
        .expect(200)
    ).body.statistics as Record<string, unknown>;
  /**
   * Events written for the webhook endpoint, delivered or still waiting for their first attempt,
   * by webhook-id: one statement, one snapshot, so an event the dispatcher moves from its batch
   * to its delivery row meanwhile counts once.
   */
  const eventsWritten = async (type: string) => {
    const [{ events }] = await env.sql<{ events: string }>(
      `SELECT count(DISTINCT id) AS events FROM (
         SELECT event_id::text AS id FROM webhook_deliveries WHERE type = $1
         UNION ALL
         SELECT e->>'event_id' FROM webhook_event_batches b, jsonb_array_elements(b.events::jsonb) e
          WHERE e->>'type' = $1) ids`,
      [type],
    );
    return Number(events);
  };

  it('counts and publishes a loop of opens of one message once', async () => {
    const ada = links('ada@example.com');
    await hammer(ada.pixel, 200);
    // Another message is another open.
    await hammer(links('bob@example.com').pixel, 200);

    expect(await campaignStats()).toMatchObject({ opens: 2, unique_opens: 2, machine_opens: 0 });
    expect(await subscriberStats('ada@example.com')).toMatchObject({ opens: 1 });
    expect(await subscriberStats('bob@example.com')).toMatchObject({ opens: 1 });
    expect(await eventsWritten('email.opened')).toBe(2);
    await waitFor(() => receiver.events('email.opened').length >= 2);
    expect(receiver.events('email.opened').map((e) => e.data.subscriber_id)).toEqual(
      expect.arrayContaining([...subscriberIds.values()]),
    );
  });

  it('counts and publishes a loop of clicks of one link once per link', async () => {
    const ada = links('ada@example.com');
    await hammer(link(ada, SHOP).path, 302);
    await hammer(link(ada, BLOG).path, 302);

    expect(await campaignStats()).toMatchObject({ clicks: 2, unique_clicks: 1 });
    expect(await subscriberStats('ada@example.com')).toMatchObject({ clicks: 2 });
    expect(await eventsWritten('email.clicked')).toBe(2);
    const clicked = await waitFor(
      () => receiver.events('email.clicked').length >= 2 && receiver.events('email.clicked'),
    );
    expect(clicked.map((e) => e.data.url).sort()).toEqual([SHOP, BLOG].sort());
  });
});
