import request from 'supertest';
import { waitUntilSent } from '../support/campaign-fixtures';
import { SmtpSink } from '../support/smtp-sink';
import { Tenant } from '../support/factories';
import { TestApi, TestEnv } from '../support/test-env';
import { APPLE_PROXY, BROWSER, linksOf, SCANNER } from '../support/tracking-links';

const PUBLIC_URL = 'https://herald.acme.test';
const SHOP = 'https://shop.acme.example/spring';
const BLOG = 'https://blog.acme.example/post';

/**
 * Account and campaign statistics end to end: a campaign goes to the SMTP sink (one address
 * refused), the test opens and clicks what arrived as people and as machines would, records
 * conversions, and checks every figure against what the sink received and what it did.
 */
describe('statistics and conversions', () => {
  let sink: SmtpSink;
  let env: TestEnv;
  let api: TestApi;
  let tenant: Tenant;
  let campaignId: string;
  const emails = ['ada@example.com', 'bob@example.com', 'cy@example.com', 'dee@bounce.example'];

  beforeAll(async () => {
    sink = await SmtpSink.start();
    sink.verdict = (message) =>
      message.to[0].endsWith('@bounce.example')
        ? { code: 550, message: 'no such user' }
        : undefined;
    env = await TestEnv.create({
      SMTP_URL: sink.url,
      ALLOW_UNVERIFIED_FROM: '1',
      PUBLIC_URL,
      RATE_LIMIT: '100000',
    });
    api = await TestApi.start(env);
    tenant = await api.tenant();
    for (const email of emails) {
      await request(api.server)
        .post('/v1/subscribers')
        .set('Authorization', tenant.auth)
        .send({ email })
        .expect(201);
    }
    const created = await request(api.server)
      .post('/v1/campaigns')
      .set('Authorization', tenant.auth)
      .send({
        name: 'Spring',
        subject: 'Spring is here',
        from: 'news@acme.test',
        html: `<p>Hi</p><p><a href="${SHOP}">Shop</a> <a href="${BLOG}">Read</a></p>`,
      })
      .expect(201);
    campaignId = created.body.id;
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
  }, 60_000);

  afterAll(async () => {
    await api?.close();
    await env?.dispose();
    await sink?.close();
  });

  const get = (path: string) => request(api.server).get(path).set('Authorization', tenant.auth);
  const hit = (path: string, agent: string) =>
    request(api.server).get(path).set('User-Agent', agent);
  const received = (email: string) => {
    const message = sink.messages.find((m) => m.to[0] === email);
    if (!message) throw new Error(`nothing received for ${email}`);
    return linksOf(message, PUBLIC_URL);
  };
  const link = (links: ReturnType<typeof received>, target: string) =>
    links.clicks.find((c) => c.target === target)!.path;

  it('counts opens and clicks of people apart from machines, per message and per link', async () => {
    const [ada, bob, cy] = emails.map((email) =>
      email.endsWith('bounce.example') ? undefined : received(email),
    );
    // What the test does, as people and as machines.
    const done = { opens: 0, machineOpens: 0, clicks: 0, machineClicks: 0 };
    const openers = new Set<string>();
    const clickers = new Set<string>();
    const perLink = new Map<string, { clicks: number; people: Set<string>; machine: number }>();
    const open = async (who: string, links: typeof ada, agent: string) => {
      await hit(links!.pixel, agent).expect(200);
      if (agent === BROWSER) {
        done.opens++;
        openers.add(who);
      } else done.machineOpens++;
    };
    const click = async (who: string, links: typeof ada, target: string, agent: string) => {
      await hit(link(links!, target), agent).expect(302);
      const entry = perLink.get(target) ?? { clicks: 0, people: new Set(), machine: 0 };
      if (agent === BROWSER) {
        done.clicks++;
        clickers.add(who);
        entry.clicks++;
        entry.people.add(who);
      } else {
        done.machineClicks++;
        entry.machine++;
      }
      perLink.set(target, entry);
    };
    await open('ada', ada, BROWSER);
    // A repeat within 60 s of the first is the same open: it counts nothing.
    await hit(ada!.pixel, BROWSER).expect(200);
    await open('bob', bob, APPLE_PROXY);
    await open('cy', cy, APPLE_PROXY);
    await click('ada', ada, SHOP, BROWSER);
    await hit(link(ada!, SHOP), BROWSER).expect(302);
    await click('ada', ada, BLOG, BROWSER);
    await click('bob', bob, SHOP, BROWSER);
    await click('cy', cy, BLOG, SCANNER);

    const delivered = sink.messages.filter((m) => !m.to[0].endsWith('@bounce.example')).length;
    const stats = (await get(`/v1/campaigns/${campaignId}/stats`).expect(200)).body;
    expect(stats).toMatchObject({
      sent: emails.length,
      delivered,
      hard_bounces: 1,
      opens: done.opens,
      unique_opens: openers.size,
      machine_opens: done.machineOpens,
      clicks: done.clicks,
      unique_clicks: clickers.size,
      machine_clicks: done.machineClicks,
      open_rate: Math.round((openers.size / delivered) * 10_000) / 10_000,
      click_rate: Math.round((clickers.size / delivered) * 10_000) / 10_000,
    });
    const links = Object.fromEntries((stats.links as { url: string }[]).map((l) => [l.url, l]));
    for (const [url, entry] of perLink) {
      expect(links[url]).toEqual({
        url,
        clicks: entry.clicks,
        unique_clicks: entry.people.size,
        machine_clicks: entry.machine,
      });
    }

    const account = (await get('/v1/stats').expect(200)).body;
    expect(account).toMatchObject({
      sent: emails.length,
      delivered,
      hard_bounces: 1,
      opens: done.opens,
      unique_opens: openers.size,
      machine_opens: done.machineOpens,
      clicks: done.clicks,
      unique_clicks: clickers.size,
      machine_clicks: done.machineClicks,
    });
    expect(account.daily).toHaveLength(30);
    const today = new Date().toISOString().slice(0, 10);
    expect(account.to).toBe(today);
    expect((account.daily as object[]).at(-1)).toMatchObject({
      date: today,
      sent: emails.length,
      delivered,
    });
    expect(account.subscribers).toEqual({
      total: emails.length,
      subscribed: emails.length - 1,
      unsubscribed: 0,
      bounced: 1,
      complained: 0,
    });
  });

  it('credits a conversion to the campaign last clicked, once per Idempotency-Key', async () => {
    const body = { email: 'ada@example.com', amount_cents: 4999, currency: 'EUR' };
    const first = await request(api.server)
      .post('/v1/conversions')
      .set('Authorization', tenant.auth)
      .set('Idempotency-Key', 'order-1001')
      .send(body)
      .expect(201);
    expect(first.body).toMatchObject({
      campaign_id: campaignId,
      amount_cents: 4999,
      currency: 'EUR',
    });
    const replay = await request(api.server)
      .post('/v1/conversions')
      .set('Authorization', tenant.auth)
      .set('Idempotency-Key', 'order-1001')
      .send(body)
      .expect(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    await request(api.server)
      .post('/v1/conversions')
      .set('Authorization', tenant.auth)
      .set('Idempotency-Key', 'order-1001')
      .send({ ...body, amount_cents: 1 })
      .expect(409);

    // Cy's only click was a scanner's: no campaign earns the credit.
    const cy = await request(api.server)
      .post('/v1/conversions')
      .set('Authorization', tenant.auth)
      .send({ email: 'cy@example.com', amount_cents: 1200, currency: 'EUR' })
      .expect(201);
    expect(cy.body.campaign_id).toBeNull();

    // Named explicitly, the campaign is credited whatever was clicked.
    const listed = (await get('/v1/subscribers').expect(200)).body.data as {
      id: string;
      email: string;
    }[];
    const subscriberId = listed.find((s) => s.email === 'bob@example.com')!.id;
    await request(api.server)
      .post('/v1/conversions')
      .set('Authorization', tenant.auth)
      .send({
        subscriber_id: subscriberId,
        amount_cents: 300,
        currency: 'EUR',
        campaign_id: campaignId,
      })
      .expect(201);

    const stats = (await get(`/v1/campaigns/${campaignId}/stats`).expect(200)).body;
    expect(stats).toMatchObject({ revenue_cents: 4999 + 300, conversions: 2 });
    const ada = (await get(`/v1/subscribers/${first.body.subscriber_id}`).expect(200)).body;
    expect(ada.statistics.revenue_cents).toBe(4999);
    const account = (await get('/v1/stats').expect(200)).body;
    expect(account.revenue_cents).toBe(4999 + 1200 + 300);
  });

  it('counts an unsubscribe through the link on the campaign and the day', async () => {
    const bob = received('bob@example.com');
    await request(api.server)
      .post(bob.unsubscribe)
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send('List-Unsubscribe=One-Click')
      .expect(200);
    expect((await get(`/v1/campaigns/${campaignId}/stats`).expect(200)).body.unsubscribes).toBe(1);
    const account = (await get('/v1/stats').expect(200)).body;
    expect(account.unsubscribes).toBe(1);
    expect(account.subscribers.unsubscribed).toBe(1);
  });

  it('refuses windows and conversions it cannot take', async () => {
    await get('/v1/stats?from=2026-02-30').expect(400);
    expect(
      (await get('/v1/stats?from=2026-03-02&to=2026-03-01').expect(422)).body.error.details[0],
    ).toMatchObject({
      field: 'from',
    });
    const post = (body: object) =>
      request(api.server).post('/v1/conversions').set('Authorization', tenant.auth).send(body);
    expect(
      (await post({ amount_cents: 1, currency: 'EUR' }).expect(422)).body.error.details[0].field,
    ).toBe('email');
    expect(
      (await post({ email: 'nobody@example.com', amount_cents: 1, currency: 'EUR' }).expect(422))
        .body.error.details[0],
    ).toMatchObject({ field: 'email', code: 'not_found' });
    await post({ email: 'ada@example.com', amount_cents: 1, currency: 'euro' }).expect(422);
    await post({ email: 'ada@example.com', currency: 'EUR' }).expect(400);

    await request(api.server)
      .post('/v1/erasures')
      .set('Authorization', tenant.auth)
      .send({ email: 'cy@example.com' })
      .expect(200);
    await post({ email: 'cy@example.com', amount_cents: 1, currency: 'EUR' }).expect(409);
  });
});
