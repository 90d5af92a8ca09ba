import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { Browser, Page } from 'playwright-core';
import { waitUntilSent } from '../support/campaign-fixtures';
import { SmtpSink } from '../support/smtp-sink';
import { TestApi, TestEnv } from '../support/test-env';
import { waitFor } from '../support/wait-for';
import { ensureWebBuild, hasChromium, launchChromium, screenshot } from './browser';

const describeWithChromium = hasChromium ? describe : describe.skip;
jest.setTimeout(180_000);

/**
 * The Activity page (the message log) in a real browser: a campaign goes to the SMTP sink (one
 * address refused with a 550) and a transactional message follows; a person finds them by
 * status, by source and by recipient, reads a message's timeline with the relay's replies, and
 * reaches the page from the campaign report, a subscriber's page and the Overview.
 * Screenshots: var/screenshots/activity-*.png.
 */
describeWithChromium('the Activity page in Chromium', () => {
  let sink: SmtpSink;
  let env: TestEnv;
  let api: TestApi;
  let browser: Browser;
  let page: Page;
  let base: string;
  let auth: string;

  beforeAll(async () => {
    ensureWebBuild();
    sink = await SmtpSink.start();
    sink.verdict = (message) =>
      message.to[0].endsWith('@bounce.example')
        ? { code: 550, message: '5.1.1 mailbox unavailable' }
        : undefined;
    env = await TestEnv.create({
      SMTP_URL: sink.url,
      ALLOW_UNVERIFIED_FROM: '1',
      RATE_LIMIT: '100000',
    });
    api = await TestApi.start(env);
    await api.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = api.app.getHttpServer().address() as AddressInfo;
    base = `http://127.0.0.1:${port}`;
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.setDefaultTimeout(30_000);

    await page.goto(`${base}/dashboard/signup`);
    await page.getByLabel('Organisation').fill('Shop Co');
    await page.getByLabel('Your name').fill('Sam Shop');
    await page.getByLabel('Work email').fill('sam@shop.example');
    await page.getByLabel('Password').fill('a long and careful passphrase');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();

    const [{ account_id: accountId }] = await env.sql<{ account_id: string }>(
      `SELECT account_id::text FROM users WHERE email_normalized = 'sam@shop.example'`,
    );
    auth = `Bearer ${(await api.key(accountId)).key}`;
    for (const email of ['ada@example.com', 'dee@bounce.example']) {
      await request(api.server)
        .post('/v1/subscribers')
        .set('Authorization', auth)
        .send({ email })
        .expect(201);
    }
    const campaignId = (
      await request(api.server)
        .post('/v1/campaigns')
        .set('Authorization', auth)
        .send({
          name: 'Spring sale',
          subject: 'Spring sale',
          from: 'news@shop.example',
          html: '<p>Hi</p>',
        })
        .expect(201)
    ).body.id as string;
    await request(api.server)
      .post(`/v1/campaigns/${campaignId}/send`)
      .set('Authorization', auth)
      .expect(202);
    await waitUntilSent(api.server, auth, campaignId);
    const id = (
      await request(api.server)
        .post('/v1/transactional/send')
        .set('Authorization', auth)
        .send({
          to: 'tx@example.com',
          from: 'app@shop.example',
          subject: 'Your receipt',
          text: 'Thanks',
        })
        .expect(202)
    ).body.id as string;
    await waitFor(async () => {
      const message = await request(api.server)
        .get(`/v1/messages/${id}`)
        .set('Authorization', auth);
      return message.body.status === 'delivered';
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
    await env?.dispose();
    await sink?.close();
  });

  const nav = (name: string) =>
    page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
  const rows = () => page.getByRole('table', { name: 'Messages' }).getByRole('row');
  /** Waits until the table shows exactly these recipients (a filter's answer has arrived). */
  const showing = async (expected: string[]) => {
    let seen: string[] = [];
    await waitFor(
      async () => {
        seen = (await rows().locator('td:first-child').allTextContents()).sort();
        return JSON.stringify(seen) === JSON.stringify([...expected].sort());
      },
      { message: () => `the table shows ${JSON.stringify(seen)}` },
    );
  };

  it('lists every message and filters by status, source and recipient', async () => {
    await nav('Activity');
    await page.getByRole('heading', { name: 'Activity' }).waitFor();
    await showing(['ada@example.com', 'dee@bounce.example', 'tx@example.com']);
    await screenshot(page, 'activity-list');

    await page.getByLabel('Status').selectOption('bounced');
    await showing(['dee@bounce.example']);
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Source').selectOption('transactional');
    await showing(['tx@example.com']);
    await page.getByLabel('Source').selectOption('');
    await page.getByLabel('Recipient').fill('ada@example.com');
    await showing(['ada@example.com']);
    await page.getByLabel('Recipient').fill('');
    await showing(['ada@example.com', 'dee@bounce.example', 'tx@example.com']);
  });

  it("shows a message's timeline with the relay's replies", async () => {
    await page.getByRole('link', { name: 'dee@bounce.example' }).click();
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    const events = page.locator('.message-event');
    await expect(events.locator('.message-event-type').allTextContents()).resolves.toEqual([
      'Queued',
      'Handed to the relay',
      'Bounced',
    ]);
    await expect(events.nth(2).textContent()).resolves.toMatch(/SMTP 550/);
    await expect(events.nth(2).locator('.smtp-reply').textContent()).resolves.toMatch(
      /mailbox unavailable/,
    );
    await screenshot(page, 'activity-message');
  });

  it('is reached from the campaign report, a subscriber and the Overview', async () => {
    await nav('Campaigns');
    await page.getByRole('link', { name: 'Spring sale' }).click();
    await page.getByRole('link', { name: 'Every message of this campaign' }).click();
    await page.getByRole('heading', { name: 'Activity' }).waitFor();
    await showing(['ada@example.com', 'dee@bounce.example']);

    await nav('Subscribers');
    await page.getByRole('link', { name: 'ada@example.com' }).click();
    await page.getByRole('link', { name: 'Messages sent to ada@example.com' }).click();
    await showing(['ada@example.com']);

    await nav('Overview');
    await page.getByRole('link', { name: 'transactional mail' }).click();
    await showing(['tx@example.com']);
    await page.getByRole('link', { name: 'tx@example.com' }).click();
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    await expect(
      page.locator('.message-event .message-event-type').allTextContents(),
    ).resolves.toEqual(['Queued', 'Handed to the relay', 'Delivered']);
  });
});
