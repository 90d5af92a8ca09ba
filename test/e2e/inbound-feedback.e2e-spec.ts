import request from 'supertest';
import { RecipientTokens } from '../../src/message-refs/recipient-token';
import { newId } from '../../src/platform/crypto/ids';
import { InboundSmtpServer } from '../../src/inbound/inbound-smtp.server';
import { InboundStats } from '../../src/inbound/inbound-stats';
import { waitUntilSent } from '../support/campaign-fixtures';
import { abuseReport, deliver, deliveryReport, headerBlock } from '../support/feedback-mail';
import { ReceivedMessage, SmtpSink } from '../support/smtp-sink';
import { TestApi, TestEnv } from '../support/test-env';
import { waitFor } from '../support/wait-for';
import { accountIdOfRow } from '../../src/platform/database/account-id';

const BOUNCE_DOMAIN = 'bounces.acme.test';

/**
 * The feedback loop over real SMTP on loopback: Herald sends a campaign to the sink, the test
 * plays the receiving systems and sends their delivery reports, a complaint and an
 * unsubscribe mail to Herald's inbound port, and the next campaign leaves those people out.
 */
describe('inbound feedback mail', () => {
  let sink: SmtpSink;
  let env: TestEnv;
  let api: TestApi;
  let port: number;
  let tenant: { accountId: string; auth: string };

  beforeAll(async () => {
    sink = await SmtpSink.start();
    env = await TestEnv.create({
      SMTP_URL: sink.url,
      // These tests are about what comes back, not sender domains.
      ALLOW_UNVERIFIED_FROM: '1',
      PUBLIC_URL: 'https://herald.acme.test',
      BOUNCE_DOMAIN,
      INBOUND_SMTP_PORT: '0',
      INBOUND_SMTP_HOST: '127.0.0.1',
      RATE_LIMIT: '100000',
      RATE_LIMIT_SEND: '100000',
    });
    api = await TestApi.start(env);
    port = api.app.get(InboundSmtpServer).port!;
    tenant = await api.tenant('Feedback');
  });
  afterAll(async () => {
    await api?.close();
    await env?.dispose();
    await sink?.close();
  });

  const get = (path: string) => request(api.server).get(path).set('Authorization', tenant.auth);
  const post = (path: string, body: object) =>
    request(api.server).post(path).set('Authorization', tenant.auth).send(body);
  const stats = () => api.app.get(InboundStats).snapshot();

  async function sendCampaign(name: string): Promise<Record<string, unknown>> {
    const created = await post('/v1/campaigns', {
      name,
      subject: `${name} for {{first_name}}`,
      from: 'Acme <news@acme.test>',
      html: '<p>Hello {{first_name}}</p><a href="{{unsubscribe_url}}">Unsubscribe</a>',
      text: 'Hello {{first_name}} {{unsubscribe_url}}',
    }).expect(201);
    await post(`/v1/campaigns/${created.body.id}/send`, {}).expect(202);
    return waitUntilSent(api.server, tenant.auth, created.body.id);
  }

  describe('a campaign whose recipients bounce, complain and unsubscribe', () => {
    const domain = 'readers.test';
    let people: { id: string; email: string; index: number }[];
    let first: Record<string, unknown>;
    let received: Map<string, ReceivedMessage>;
    const HARD = 0;
    const SOFT = 1;
    const COMPLAINS = 2;
    const UNSUBSCRIBES = 3;

    beforeAll(async () => {
      people = await api.make.subscribers(tenant.accountId, 6, { domain });
      first = await sendCampaign('First');
      received = new Map(
        sink.messages.filter((m) => m.to[0].endsWith(`@${domain}`)).map((m) => [m.to[0], m]),
      );
      expect(received.size).toBe(6);

      const to = (index: number) => received.get(people[index].email)!;
      // The receiving systems answer later, to the envelope sender of each message.
      await deliver(
        port,
        { from: '', to: [to(HARD).from] },
        deliveryReport({
          to: to(HARD).from,
          finalRecipient: people[HARD].email,
          status: '5.1.1',
          originalHeaders: headerBlock(to(HARD).raw),
        }),
      );
      await deliver(
        port,
        { from: '', to: [to(SOFT).from] },
        deliveryReport({ to: to(SOFT).from, finalRecipient: people[SOFT].email, status: '4.2.2' }),
      );
      // A mailbox provider's feedback loop mails its own registered address, quoting the
      // message's headers, which carry its return path.
      await deliver(
        port,
        { from: 'fbl@isp.example.net', to: [`fbl@${BOUNCE_DOMAIN}`] },
        abuseReport({
          to: `fbl@${BOUNCE_DOMAIN}`,
          originalHeaders: headerBlock(to(COMPLAINS).raw),
        }),
      );
      // The recipient's mail client uses the List-Unsubscribe mailto.
      const mailto = /<mailto:([^?>]+)\?subject=unsubscribe>/.exec(
        to(UNSUBSCRIBES).headers['list-unsubscribe'],
      )![1];
      expect(mailto).toMatch(new RegExp(`^u-[a-z2-7]{61}@${BOUNCE_DOMAIN.replace(/\./g, '\\.')}$`));
      await deliver(
        port,
        { from: people[UNSUBSCRIBES].email, to: [mailto] },
        `From: ${people[UNSUBSCRIBES].email}\r\nTo: ${mailto}\r\nSubject: unsubscribe\r\n\r\n`,
      );
    });

    it('counts bounces by kind, the complaint and the unsubscribe on the campaign', async () => {
      const campaign = await get(`/v1/campaigns/${first.id as string}/stats`).expect(200);
      expect(campaign.body).toMatchObject({
        delivered: 6,
        bounces: 1,
        hard_bounces: 1,
        soft_bounces: 1,
        complaints: 1,
        unsubscribes: 1,
        bounce_rate: 0.1667,
        complaint_rate: 0.1667,
        unsubscribe_rate: 0.1667,
      });
    });

    it('updates the subscribers: statuses Herald sets and their bounce statistics', async () => {
      const subscriber = async (index: number) =>
        (await get(`/v1/subscribers/${people[index].id}`).expect(200)).body as {
          status: string;
          statistics: Record<string, number>;
        };
      expect(await subscriber(HARD)).toMatchObject({
        status: 'bounced',
        statistics: { hard_bounces: 1, soft_bounces: 0 },
      });
      // One soft bounce is no reason to stop: the address stays mailable.
      expect(await subscriber(SOFT)).toMatchObject({
        status: 'subscribed',
        statistics: { hard_bounces: 0, soft_bounces: 1 },
      });
      expect((await subscriber(COMPLAINS)).status).toBe('complained');
      expect((await subscriber(UNSUBSCRIBES)).status).toBe('unsubscribed');
    });

    it('lists the three on the suppression list with their reasons', async () => {
      const list = await get('/v1/suppressions?limit=100').expect(200);
      const reasons = Object.fromEntries(
        (list.body.data as { email: string; reason: string }[]).map((e) => [e.email, e.reason]),
      );
      expect(reasons).toEqual({
        [people[HARD].email]: 'hard_bounce',
        [people[COMPLAINS].email]: 'complaint',
        [people[UNSUBSCRIBES].email]: 'unsubscribe',
      });
    });

    it('counts the same report delivered twice once', async () => {
      const message = received.get(people[HARD].email)!;
      const report = deliveryReport({
        to: message.from,
        finalRecipient: people[HARD].email,
        status: '5.1.1',
        messageId: 'the-same-report',
      });
      await deliver(port, { from: '', to: [message.from] }, report);
      const before = stats().repeated ?? 0;
      await deliver(port, { from: '', to: [message.from] }, report);
      expect(stats().repeated).toBe(before + 1);
      const campaign = await get(`/v1/campaigns/${first.id as string}/stats`).expect(200);
      expect(campaign.body.hard_bounces).toBe(1);
      const subscriber = await get(`/v1/subscribers/${people[HARD].id}`).expect(200);
      expect(subscriber.body.statistics.hard_bounces).toBe(1);
    });

    it('skips all three in the next campaign, counted by reason', async () => {
      const before = sink.messages.length;
      const second = await sendCampaign('Second');
      const got = sink.messages.slice(before).map((m) => m.to[0]);
      expect(got.sort()).toEqual([1, 4, 5].map((i) => people[i].email).sort());
      expect(second).toMatchObject({
        recipients: 3,
        delivered: 3,
        skipped_bounced: 1,
        skipped_complained: 1,
        skipped_unsubscribed: 1,
        skipped_suppressed: 0,
      });
    });
  });

  describe('what the inbound port refuses or drops', () => {
    it('refuses forged tokens and other domains at RCPT, and counts them', async () => {
      const forged = `b-${'a'.repeat(61)}@${BOUNCE_DOMAIN}`;
      const before = stats();
      await expect(
        deliver(port, { from: '', to: [forged] }, 'Subject: x\r\n\r\nx'),
      ).rejects.toMatchObject({ responseCode: 550 });
      await expect(
        deliver(port, { from: '', to: ['someone@elsewhere.test'] }, 'Subject: x\r\n\r\nx'),
      ).rejects.toMatchObject({ responseCode: 550 });
      expect(stats().forged_token).toBe((before.forged_token ?? 0) + 1);
      expect(stats().foreign_recipient).toBe((before.foreign_recipient ?? 0) + 1);
    });

    it('drops a complaint whose quoted headers carry a forged token, changing nothing', async () => {
      const forged = `b-${'c'.repeat(61)}@${BOUNCE_DOMAIN}`;
      const before = stats().forged_token ?? 0;
      const suppressions = await env.sql('SELECT email_normalized FROM suppressions');
      await deliver(
        port,
        { from: 'fbl@isp.example.net', to: [`fbl@${BOUNCE_DOMAIN}`] },
        abuseReport({ to: `fbl@${BOUNCE_DOMAIN}`, originalHeaders: `Return-Path: <${forged}>` }),
      );
      expect(stats().forged_token).toBe(before + 1);
      expect(await env.sql('SELECT email_normalized FROM suppressions')).toEqual(suppressions);
    });

    it('refuses a message over the size limit', async () => {
      const huge = Buffer.alloc(env.config.deliverability.inboundSmtp!.maxBytes + 1024, 'a');
      await expect(
        deliver(port, { from: '', to: [`fbl@${BOUNCE_DOMAIN}`] }, huge),
      ).rejects.toMatchObject({ responseCode: 552 });
    });
  });

  describe('transactional mail', () => {
    const send = (to: string) =>
      post('/v1/transactional/send', {
        to,
        from: 'Acme <hi@acme.test>',
        subject: 'Receipt',
        text: 'Thanks',
      });
    const delivered = (to: string) =>
      waitFor(() => sink.messages.find((m) => m.to[0] === to && !seen.has(m)));
    const seen = new Set<ReceivedMessage>();

    it('a hard bounce report suppresses the address: the next send is a 422', async () => {
      const to = 'gone@customers.test';
      await send(to).expect(202);
      const message = await delivered(to);
      seen.add(message);
      expect(message.from).toMatch(/^b-[a-z2-7]{36}@bounces\.acme\.test$/);
      await deliver(
        port,
        { from: '', to: [message.from] },
        deliveryReport({ to: message.from, finalRecipient: to, status: '5.1.1' }),
      );
      const refused = await send(to).expect(422);
      expect(refused.body.error.details[0]).toMatchObject({ field: 'to', code: 'suppressed' });
    });

    it('three soft bounces in a row mark a subscriber bounced; an open in between resets', async () => {
      const to = 'full-mailbox@customers.test';
      const subscriber = await post('/v1/subscribers', { email: to }).expect(201);
      const softBounce = async () => {
        await send(to).expect(202);
        const message = await delivered(to);
        seen.add(message);
        await deliver(
          port,
          { from: '', to: [message.from] },
          deliveryReport({ to: message.from, finalRecipient: to, status: '4.2.2' }),
        );
      };
      const state = async () =>
        (await get(`/v1/subscribers/${subscriber.body.id}`).expect(200)).body as {
          status: string;
          statistics: { soft_bounces: number };
        };
      await softBounce();
      await softBounce();
      // Proof of life: the person opens a campaign message (the tracking pixel), and the
      // count of soft bounces in a row starts over.
      const token = api.app.get(RecipientTokens).issue('track', {
        accountId: accountIdOfRow(tenant.accountId),
        subscriberId: subscriber.body.id as string,
        campaignId: newId(),
      });
      await request(api.server).get(`/t/open/${token}`).expect(200);
      await softBounce();
      await softBounce();
      expect(await state()).toMatchObject({
        status: 'subscribed',
        statistics: { soft_bounces: 4 },
      });
      await softBounce();
      expect(await state()).toMatchObject({ status: 'bounced', statistics: { soft_bounces: 5 } });
      const entry = await env.sql<{ reason: string }>(
        'SELECT reason FROM suppressions WHERE email_normalized = $1',
        [to],
      );
      expect(entry).toEqual([{ reason: 'hard_bounce' }]);
    });
  });
});
