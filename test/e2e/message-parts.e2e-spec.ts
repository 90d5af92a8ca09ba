import { simpleParser } from 'mailparser';
import request from 'supertest';
import { AccountsService } from '../../src/accounts/accounts.service';
import { waitUntilSent } from '../support/campaign-fixtures';
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
      // These tests are about what comes back, not sender domains.
      ALLOW_UNVERIFIED_FROM: '1',
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
    await api.make.subscribers(account.accountId, 2, { domain });
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

  describe('a visible way out', () => {
    const html = '<html><body><p>Hello {{first_name}}</p></body></html>';

    it('appends a footer with the account’s name, postal address and links when the content has none', async () => {
      const mails = await campaignTo(
        'footer.test',
        { html, text: 'Hello {{first_name}}' },
        'Parts & Co',
      );
      for (const mail of mails) {
        expect(mail.html).toMatch(
          /<p>Hello Person \d<\/p><div [^>]*>\s*<p[^>]*>Parts &amp; Co<\/p>/,
        );
        expect(mail.html).toMatch(/href="https:\/\/herald\.test\/unsubscribe\/[\w.-]+"/);
        expect(mail.html).toMatch(/href="https:\/\/herald\.test\/preferences\/[\w.-]+"/);
        expect(mail.text).toMatch(
          /^Hello Person \d\n\n--\nParts & Co\nUnsubscribe: https:\/\/herald\.test\/unsubscribe\/\S+\nManage your subscription: https:\/\/herald\.test\/preferences\/\S+$/,
        );
      }
    });

    it('prints the postal address once the account has one, and no footer where the author placed a link', async () => {
      const account = await api.tenant('Addressed');
      await api.app
        .get(AccountsService)
        .updatePostalAddress(
          { accountId: account.accountId, apiKeyId: account.keyId, scopes: [] },
          '1 Main Street\nSpringfield 12345',
        );
      await api.make.subscribers(account.accountId, 1, { domain: 'addressed.test' });
      const send = (path: string, body: object) =>
        request(api.server).post(path).set('Authorization', account.auth).send(body);
      const created = await send('/v1/campaigns', {
        name: 'Addressed',
        subject: 'News',
        from: 'Parts <news@parts.test>',
        html,
        text: 'Hello. Leave: {{unsubscribe_url}}',
      }).expect(201);
      await send(`/v1/campaigns/${created.body.id}/send`, {}).expect(202);
      await waitUntilSent(api.server, account.auth, created.body.id);
      const mail = await simpleParser(
        sink.messages.find((m) => m.to[0].endsWith('@addressed.test'))!.raw,
      );
      expect(mail.html).toContain('Addressed · 1 Main Street, Springfield 12345');
      expect(mail.text).toMatch(/^Hello\. Leave: https:\/\/herald\.test\/unsubscribe\/\S+$/);
    });
  });

  describe('the unsubscribe and subscription pages', () => {
    let links: { unsubscribe: string; preferences: string };
    let person: { id: string; email: string };
    let auth: string;

    beforeAll(async () => {
      const account = await api.tenant('Pages <&> Co');
      auth = account.auth;
      [person] = await api.make.subscribers(account.accountId, 1, { domain: 'pages.test' });
      const created = await request(api.server)
        .post('/v1/campaigns')
        .set('Authorization', auth)
        .send({ name: 'Pages', subject: 'News', from: 'P <p@pages.test>', text: 'Hi' })
        .expect(201);
      await request(api.server)
        .post(`/v1/campaigns/${created.body.id}/send`)
        .set('Authorization', auth)
        .expect(202);
      await waitUntilSent(api.server, auth, created.body.id);
      const text = (await simpleParser(sink.messages.find((m) => m.to[0] === person.email)!.raw))
        .text!;
      links = {
        unsubscribe: /https:\/\/herald\.test(\/unsubscribe\/\S+)/.exec(text)![1],
        preferences: /https:\/\/herald\.test(\/preferences\/\S+)/.exec(text)![1],
      };
    });

    const status = async () =>
      (
        await env.sql<{ status: string }>('SELECT status FROM subscribers WHERE id = $1', [
          person.id,
        ])
      )[0].status;

    it('names the sender (escaped) and asks for a click; a GET changes nothing', async () => {
      const page = await request(api.server).get(links.unsubscribe).expect(200);
      expect(page.text).toContain(
        'Stop receiving emails from <strong>Pages &#60;&#38;&#62; Co</strong>?',
      );
      expect(page.text).toContain('<button type="submit">Unsubscribe</button>');
      expect(await status()).toBe('subscribed');
    });

    it('unsubscribes on the button, offers the way back, and resubscribes from the subscription page', async () => {
      const done = await request(api.server)
        .post(links.unsubscribe)
        .type('form')
        .send('List-Unsubscribe=One-Click')
        .expect(200);
      expect(done.text).toContain('Subscribe again');
      expect(await status()).toBe('unsubscribed');

      const page = await request(api.server).get(links.preferences).expect(200);
      expect(page.text).toContain('You do not receive emails from');
      await request(api.server)
        .post(links.preferences)
        .type('form')
        .send('action=subscribe')
        .expect(200);
      expect(await status()).toBe('subscribed');
      expect(
        await env.sql('SELECT 1 FROM suppressions WHERE email_normalized = $1', [person.email]),
      ).toEqual([]);
      const audit = await env.sql<{ metadata: object }>(
        `SELECT metadata FROM audit_events WHERE action = 'subscriber.resubscribed'`,
      );
      expect(audit).toEqual([
        { metadata: { via: 'subscription_page', previous_status: 'unsubscribed' } },
      ]);
    });

    it('does not let a person undo a hard bounce themselves', async () => {
      await env.sql(`UPDATE subscribers SET status = 'bounced' WHERE id = $1`, [person.id]);
      await env.sql(
        `INSERT INTO suppressions (id, account_id, email_normalized, reason)
         SELECT gen_random_uuid(), account_id, email_normalized, 'hard_bounce' FROM subscribers WHERE id = $1`,
        [person.id],
      );
      const page = await request(api.server).get(links.preferences).expect(200);
      expect(page.text).not.toContain('Subscribe again');
      await request(api.server)
        .post(links.preferences)
        .type('form')
        .send('action=subscribe')
        .expect(200);
      expect(await status()).toBe('bounced');
    });

    it('answers 404 for a forged link', async () => {
      await request(api.server)
        .get(`${links.preferences.slice(0, -3)}xyz`)
        .expect(404);
      await request(api.server)
        .get(`${links.unsubscribe.slice(0, -3)}xyz`)
        .expect(404);
    });
  });
});
