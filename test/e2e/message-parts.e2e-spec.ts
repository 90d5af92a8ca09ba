import { simpleParser } from 'mailparser';
import request from 'supertest';
import { seedSubscribers, waitUntilSent } from '../support/campaign-fixtures';
import { SmtpSink } from '../support/smtp-sink';
import { TestApi, TestEnv } from '../support/test-env';
import { waitFor } from '../support/wait-for';

/**
 * What every message carries whatever its author wrote: a text part beside the HTML, and a
 * visible way to unsubscribe in both (the author's `{{unsubscribe_url}}`, or Herald's footer).
 */
describe('message parts', () => {
  let sink: SmtpSink;
  let env: TestEnv;
  let api: TestApi;
  let tenant: { accountId: string; auth: string };

  beforeAll(async () => {
    sink = await SmtpSink.start();
    env = await TestEnv.create({
      SMTP_URL: sink.url,
      PUBLIC_URL: 'https://herald.test',
      RATE_LIMIT: '100000',
      RATE_LIMIT_SEND: '100000',
    });
    api = await TestApi.start(env);
    tenant = await api.tenant('Parts & Co');
  });
  afterAll(async () => {
    await api?.close();
    await env?.dispose();
    await sink?.close();
  });

  const post = (path: string, body: object) =>
    request(api.server).post(path).set('Authorization', tenant.auth).send(body);

  /** A campaign to two fresh subscribers of a fresh account (named `name`), as received. */
  async function campaignTo(
    domain: string,
    content: { html?: string; text?: string },
    name = 'Parts & Co',
  ) {
    const account = await api.tenant(name);
    await seedSubscribers(env, account.accountId, 2, { domain });
    const send = (path: string, body: object) =>
      request(api.server).post(path).set('Authorization', account.auth).send(body);
    const created = await send('/v1/campaigns', {
      name: domain,
      subject: 'News',
      from: 'Parts <news@parts.test>',
      ...content,
    }).expect(201);
    await send(`/v1/campaigns/${created.body.id}/send`, {}).expect(202);
    await waitUntilSent(api.server, account.auth, created.body.id);
    const received = sink.messages.filter((m) => m.to[0].endsWith(`@${domain}`));
    expect(received).toHaveLength(2);
    return Promise.all(received.map((m) => simpleParser(m.raw)));
  }

  describe('a text part for every message', () => {
    it('is generated from a campaign’s HTML, merge fields and the unsubscribe link included', async () => {
      const [mail] = await campaignTo('html-only.test', {
        html: '<h1>Hello {{first_name}}</h1><p>See <a href="https://parts.test/new">what is new</a>.</p><p><a href="{{unsubscribe_url}}">Unsubscribe</a></p>',
      });
      expect(mail.html).toContain('<h1>Hello Person');
      expect(mail.text).toMatch(
        /^Hello Person \d\n\nSee what is new \[https:\/\/parts\.test\/new\]\./,
      );
      expect(mail.text).toMatch(/Unsubscribe \[https:\/\/herald\.test\/unsubscribe\/[\w.-]+\]/);
      expect(mail.text).not.toContain('/t/open/'); // the pixel is no text
    });

    it('is generated for an HTML-only transactional message', async () => {
      const to = 'receipt@parts.test';
      await post('/v1/transactional/send', {
        to,
        from: 'Parts <hi@parts.test>',
        subject: 'Receipt',
        html: '<p>Thanks for your order <b>#42</b>.</p>',
      }).expect(202);
      const received = await waitFor(() => sink.messages.find((m) => m.to[0] === to));
      const mail = await simpleParser(received.raw);
      expect(mail.text?.trim()).toBe('Thanks for your order #42.');
      expect(mail.html).toContain('<b>#42</b>');
    });
  });
});
