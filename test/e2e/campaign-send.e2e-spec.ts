import request from 'supertest';
import { waitUntilSent } from '../support/campaign-fixtures';
import { SmtpSink } from '../support/smtp-sink';
import { TestApi, TestEnv } from '../support/test-env';

/**
 * The send pipeline end to end: API with embedded workers → BullMQ → fan-out →
 * delivery → a real SMTP server on loopback.
 */
describe('campaign send over SMTP', () => {
  let sink: SmtpSink;
  let env: TestEnv;
  let api: TestApi;

  beforeAll(async () => {
    sink = await SmtpSink.start();
    env = await TestEnv.create({
      SMTP_URL: sink.url,
      PUBLIC_URL: 'https://herald.test',
      RATE_LIMIT: '100000',
      RATE_LIMIT_SEND: '100000',
      ALLOW_UNVERIFIED_FROM: '1',
      // A deferred recipient is tried again a second later (a minute by default).
      SMTP_RETRY_FIRST_SECONDS: '1',
    });
    api = await TestApi.start(env);
  });
  afterAll(async () => {
    await api?.close();
    await env?.dispose();
    await sink?.close();
  });

  const to = (domain: string) => sink.messages.filter((m) => m.to[0].endsWith(`@${domain}`));

  describe('a 300-recipient campaign with erased, unsubscribed and bounced members', () => {
    const domain = 'three-hundred.test';
    let tenant: { accountId: string; auth: string };
    let campaignId: string;
    let people: { id: string; email: string; index: number }[];
    const erased = new Set([3, 50, 51, 120, 299]);
    const unsubscribed = new Set([0, 7, 8, 9, 200, 201]);
    const bounced = new Set([42, 43]);
    const eligible = () =>
      people.filter(
        (p) => !erased.has(p.index) && !unsubscribed.has(p.index) && !bounced.has(p.index),
      );
    let sendResponses: request.Response[];
    let stats: Record<string, unknown>;

    beforeAll(async () => {
      tenant = await api.tenant('Three hundred');
      people = await api.make.subscribers(tenant.accountId, 300, { domain });
      const created = await request(api.server)
        .post('/v1/campaigns')
        .set('Authorization', tenant.auth)
        .send({
          name: 'Launch',
          subject: 'Hello {{first_name}}',
          from: 'Acme News <news@acme.test>',
          html: '<html><body><p>Hi {{first_name}} (#{{n}})</p><a href="https://acme.test/offer?a=1&amp;b=2">Offer</a> <a href="{{unsubscribe_url}}">Unsubscribe</a></body></html>',
          text: 'Hi {{first_name}} (#{{n}})',
        })
        .expect(201);
      campaignId = created.body.id;
      expect(created.body.status).toBe('draft');

      for (const index of erased) {
        await request(api.server)
          .post('/v1/erasures')
          .set('Authorization', tenant.auth)
          .send({ email: people[index].email })
          .expect(200);
      }
      await env.sql(`UPDATE subscribers SET status = 'unsubscribed' WHERE id = ANY($1::uuid[])`, [
        [...unsubscribed].map((i) => people[i].id),
      ]);
      await env.sql(`UPDATE subscribers SET status = 'bounced' WHERE id = ANY($1::uuid[])`, [
        [...bounced].map((i) => people[i].id),
      ]);

      sendResponses = await Promise.all(
        Array.from({ length: 20 }, () =>
          request(api.server)
            .post(`/v1/campaigns/${campaignId}/send`)
            .set('Authorization', tenant.auth),
        ),
      );
      stats = await waitUntilSent(api.server, tenant.auth, campaignId);
    });

    it('lets exactly one of 20 concurrent send calls through (202), the rest get 409', () => {
      const statuses = sendResponses.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 202)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(19);
      const winner = sendResponses.find((r) => r.status === 202)!;
      expect(winner.body).toEqual({ id: campaignId, status: 'sending' });
      const loser = sendResponses.find((r) => r.status === 409)!;
      expect(loser.body.error.code).toBe('conflict');
    });

    it('delivers exactly one message to every eligible recipient and none to anyone else', () => {
      const received = to(domain).map((m) => m.to[0]);
      expect(received).toHaveLength(eligible().length);
      expect(new Set(received).size).toBe(received.length);
      expect(new Set(received)).toEqual(new Set(eligible().map((p) => p.email)));
    });

    it('renders merge fields per recipient', () => {
      for (const message of to(domain)) {
        const index = Number(/^reader(\d+)@/.exec(message.to[0])![1]);
        expect(message.headers.subject).toBe(`Hello Person ${index}`);
        expect(message.body).toContain(`Hi Person ${index} (#${index})`);
      }
    });

    it('carries Message-ID, the one-click List-Unsubscribe headers and a VERP return path, without the address', () => {
      for (const message of to(domain)) {
        const subscriber = people.find((p) => p.email === message.to[0])!;
        expect(message.headers['message-id']).toBe(`<${campaignId}.${subscriber.id}@acme.test>`);
        expect(message.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
        const header = message.headers['list-unsubscribe'];
        expect(header).toMatch(
          /^<https:\/\/herald\.test\/unsubscribe\/[\w-]+\.[\w-]+>, <mailto:u-[a-z2-7]{61}@herald\.test\?subject=unsubscribe>$/,
        );
        // The envelope sender is the message's own VERP address at BOUNCE_DOMAIN (by default
        // the PUBLIC_URL host), where bounce reports about it will arrive.
        expect(message.from).toMatch(/^b-[a-z2-7]{61}@herald\.test$/);
        expect(header).not.toContain(subscriber.email);
        expect(header).not.toContain('reader');
      }
    });

    it('reaches sent with counters that add up', async () => {
      expect(stats).toMatchObject({
        status: 'sent',
        recipients: eligible().length,
        sent: eligible().length,
        delivered: eligible().length,
        failed: 0,
        bounces: 0,
        skipped_erased: erased.size,
        skipped_unsubscribed: unsubscribed.size,
        skipped_bounced: bounced.size,
        outstanding: 0,
        percent: 100,
      });
      const ledger = await env.sql<{ status: string; count: string }>(
        `SELECT status, count(*) FROM campaign_recipients WHERE campaign_id = $1 GROUP BY status`,
        [campaignId],
      );
      expect(Object.fromEntries(ledger.map((r) => [r.status, Number(r.count)]))).toEqual({
        sent: eligible().length,
        skipped: unsubscribed.size + bounced.size,
      });
      const campaign = await request(api.server)
        .get(`/v1/campaigns/${campaignId}`)
        .set('Authorization', tenant.auth)
        .expect(200);
      expect(campaign.body.status).toBe('sent');
      expect(campaign.body.finished_at).not.toBeNull();
      expect(campaign.body.progress).toMatchObject({ recipients: eligible().length, percent: 100 });
    });

    it('updates subscriber statistics', async () => {
      const rows = await env.sql<{
        email: string;
        stat_sent: number;
        stat_delivered: number;
        last_sent_at: Date | null;
      }>(
        `SELECT email, stat_sent, stat_delivered, last_sent_at FROM subscribers WHERE account_id = $1`,
        [tenant.accountId],
      );
      const mailed = new Set(eligible().map((p) => p.email));
      for (const row of rows) {
        const expected = mailed.has(row.email) ? 1 : 0;
        expect([row.email, row.stat_sent, row.stat_delivered]).toEqual([
          row.email,
          expected,
          expected,
        ]);
        expect(row.last_sent_at === null).toBe(expected === 0);
      }
    });

    it('refuses every later send, edit and delete with 409', async () => {
      const again = await request(api.server)
        .post(`/v1/campaigns/${campaignId}/send`)
        .set('Authorization', tenant.auth)
        .expect(409);
      expect(again.body.error.code).toBe('conflict');
      await request(api.server)
        .patch(`/v1/campaigns/${campaignId}`)
        .set('Authorization', tenant.auth)
        .send({ name: 'Renamed' })
        .expect(409);
      await request(api.server)
        .delete(`/v1/campaigns/${campaignId}`)
        .set('Authorization', tenant.auth)
        .expect(409);
    });

    it('unsubscribes with an RFC 8058 one-click POST to the List-Unsubscribe link', async () => {
      const message = to(domain)[0];
      const url = /<https:\/\/herald\.test(\/unsubscribe\/[^>]+)>/.exec(
        message.headers['list-unsubscribe'],
      )![1];
      const page = await request(api.server).get(url).expect(200);
      expect(page.headers['content-type']).toContain('text/html');
      expect(page.text).toContain('<form method="post"');
      const [before] = await env.sql<{ status: string }>(
        `SELECT status FROM subscribers WHERE email = $1`,
        [message.to[0]],
      );
      expect(before.status).toBe('subscribed'); // a GET changes nothing
      await request(api.server)
        .post(url)
        .type('form')
        .send('List-Unsubscribe=One-Click')
        .expect(200);
      const [after] = await env.sql<{ status: string }>(
        `SELECT status FROM subscribers WHERE email = $1`,
        [message.to[0]],
      );
      expect(after.status).toBe('unsubscribed');
      // Once on the campaign however often it is posted, and on the suppression list.
      await request(api.server).post(url).type('form').send('List-Unsubscribe=One-Click');
      const stats = await request(api.server)
        .get(`/v1/campaigns/${campaignId}/stats`)
        .set('Authorization', tenant.auth)
        .expect(200);
      expect(stats.body.unsubscribes).toBe(1);
      const [entry] = await env.sql<{ reason: string }>(
        `SELECT reason FROM suppressions WHERE email_normalized = $1`,
        [message.to[0]],
      );
      expect(entry).toEqual({ reason: 'unsubscribe' });
      await request(api.server)
        .post(`${url.slice(0, -3)}xyz`)
        .type('form')
        .send('')
        .expect(404);
    });

    it('tracks opens and clicks through PUBLIC_URL links', async () => {
      const message = to(domain)[1];
      const pixel = /https:\/\/herald\.test(\/t\/open\/[\w.-]+)/.exec(message.body)![1];
      const click = /https:\/\/herald\.test(\/t\/click\/[^"]+)"/
        .exec(message.body)![1]
        .replace(/&amp;/g, '&');
      // A person reads later, in a mail client; what comes within seconds of delivery, or
      // with a bare or scanner user agent, is counted as a machine's (the stats suite).
      await env.sql(
        `UPDATE campaign_recipients SET sent_at = sent_at - interval '10 minutes' WHERE campaign_id = $1`,
        [campaignId],
      );
      const reader =
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 Thunderbird';
      const gif = await request(api.server).get(pixel).set('User-Agent', reader).expect(200);
      expect(gif.headers['content-type']).toBe('image/gif');
      // Fetched again within 60 s (a client reloading the pixel): served, counted once.
      await request(api.server).get(pixel).set('User-Agent', reader).expect(200);
      const redirect = await request(api.server).get(click).set('User-Agent', reader).expect(302);
      expect(redirect.headers.location).toBe('https://acme.test/offer?a=1&b=2');
      await request(api.server)
        .get(click.replace(/s=[\w-]+/, 's=forged'))
        .expect(404);
      const after = await request(api.server)
        .get(`/v1/campaigns/${campaignId}/stats`)
        .set('Authorization', tenant.auth)
        .expect(200);
      expect(after.body).toMatchObject({ opens: 1, unique_opens: 1, clicks: 1, unique_clicks: 1 });
      const [subscriber] = await env.sql<{ stat_opens: number; stat_clicks: number }>(
        `SELECT stat_opens, stat_clicks FROM subscribers WHERE email = $1`,
        [message.to[0]],
      );
      expect(subscriber).toEqual({ stat_opens: 1, stat_clicks: 1 });
    });
  });

  describe('SMTP failures', () => {
    const domain = 'failures.test';
    let tenant: { accountId: string; auth: string };
    let people: { id: string; email: string; index: number }[];
    let stats: Record<string, unknown>;
    const softOnce = new Set<string>();

    beforeAll(async () => {
      tenant = await api.tenant('Failures');
      people = await api.make.subscribers(tenant.accountId, 6, { domain });
      const [soft, hard] = [people[1].email, people[4].email];
      sink.verdict = (message) => {
        if (message.to[0] === hard) return { code: 550, message: '5.1.1 No such user' };
        if (message.to[0] === soft && !softOnce.has(soft)) {
          softOnce.add(soft);
          return { code: 451, message: '4.3.0 Try again later' };
        }
        return undefined;
      };
      const created = await request(api.server)
        .post('/v1/campaigns')
        .set('Authorization', tenant.auth)
        .send({
          name: 'Flaky',
          subject: 'Hi',
          from: 'news@acme.test',
          text: 'Hello {{first_name}}',
        })
        .expect(201);
      await request(api.server)
        .post(`/v1/campaigns/${created.body.id}/send`)
        .set('Authorization', tenant.auth)
        .expect(202);
      stats = await waitUntilSent(api.server, tenant.auth, created.body.id);
    });
    afterAll(() => {
      sink.verdict = () => undefined;
    });

    it('defers a 4xx and tries again until accepted, and records a 5xx as a failed hard bounce', async () => {
      expect(softOnce.size).toBe(1);
      const received = to(domain)
        .map((m) => m.to[0])
        .sort();
      expect(received).toEqual(
        people
          .filter((p) => p.index !== 4)
          .map((p) => p.email)
          .sort(),
      );
      expect(stats).toMatchObject({
        recipients: 6,
        sent: 6,
        delivered: 5,
        failed: 1,
        bounces: 1,
        outstanding: 0,
      });
      const [hard] = await env.sql<{
        status: string;
        stat_sent: number;
        stat_delivered: number;
        stat_hard_bounces: number;
      }>(
        `SELECT status, stat_sent, stat_delivered, stat_hard_bounces FROM subscribers WHERE id = $1`,
        [people[4].id],
      );
      expect(hard).toEqual({
        status: 'bounced',
        stat_sent: 1,
        stat_delivered: 0,
        stat_hard_bounces: 1,
      });
      const [row] = await env.sql<{ status: string; smtp_code: number }>(
        `SELECT status, smtp_code FROM campaign_recipients WHERE subscriber_id = $1`,
        [people[4].id],
      );
      expect(row).toEqual({ status: 'failed', smtp_code: 550 });
      // The relay's refusal lists the address, as a bounce report would.
      const listed = await env.sql<{ reason: string }>(
        `SELECT reason FROM suppressions WHERE email_normalized = $1`,
        [people[4].email.toLowerCase()],
      );
      expect(listed).toEqual([{ reason: 'hard_bounce' }]);
    });
  });
});
