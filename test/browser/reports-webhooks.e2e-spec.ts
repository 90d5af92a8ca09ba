import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { Browser, Page } from 'playwright-core';
import { waitUntilSent } from '../support/campaign-fixtures';
import { SmtpSink } from '../support/smtp-sink';
import { TestApi, TestEnv } from '../support/test-env';
import { BROWSER, linksOf } from '../support/tracking-links';
import { waitFor } from '../support/wait-for';
import { WebhookReceiver } from '../support/webhook-receiver';
import { ensureWebBuild, hasChromium, launchChromium, screenshot } from './browser';

const describeWithChromium = hasChromium ? describe : describe.skip;
jest.setTimeout(180_000);

const SHOP = 'https://shop.acme.example/spring';

/**
 * The report pages and the Webhooks page in a real browser: a campaign sent through the SMTP
 * sink and clicked, its report (rates, the per-link table, revenue) and the account overview;
 * then a person adds a webhook endpoint, keeps the secret shown once (the receiver verifies
 * with it), reads the delivery log and retries a delivery. Screenshots:
 * var/screenshots/report-*.png, webhooks-*.png.
 */
describeWithChromium('reports and webhooks pages in Chromium', () => {
  let sink: SmtpSink;
  let env: TestEnv;
  let api: TestApi;
  let receiver: WebhookReceiver;
  let browser: Browser;
  let page: Page;
  let base: string;
  let auth: string;
  let campaignId: string;
  // Links in mail start with PUBLIC_URL (its default here); the test follows their paths.
  const publicUrl = () => 'http://localhost:3000';

  beforeAll(async () => {
    ensureWebBuild();
    sink = await SmtpSink.start();
    receiver = await new WebhookReceiver().start();
    env = await TestEnv.create({
      SMTP_URL: sink.url,
      ALLOW_UNVERIFIED_FROM: '1',
      WEBHOOK_ALLOW_PRIVATE: '1',
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

    // The account's mail, sent through the API with a key of the account just created.
    const [{ account_id: accountId }] = await env.sql<{ account_id: string }>(
      `SELECT account_id::text FROM users WHERE email_normalized = 'sam@shop.example'`,
    );
    auth = `Bearer ${(await api.key(accountId)).key}`;
    for (const email of ['ada@example.com', 'bob@example.com', 'cy@example.com']) {
      await request(api.server)
        .post('/v1/subscribers')
        .set('Authorization', auth)
        .send({ email })
        .expect(201);
    }
    campaignId = (
      await request(api.server)
        .post('/v1/campaigns')
        .set('Authorization', auth)
        .send({
          name: 'Spring sale',
          subject: 'Spring sale',
          from: 'news@shop.example',
          html: `<p>Hi</p><p><a href="${SHOP}">Shop now</a></p>`,
        })
        .expect(201)
    ).body.id;
    await request(api.server)
      .post(`/v1/campaigns/${campaignId}/send`)
      .set('Authorization', auth)
      .expect(202);
    await waitUntilSent(api.server, auth, campaignId);
    await env.sql(
      `UPDATE campaign_recipients SET sent_at = sent_at - interval '10 minutes' WHERE campaign_id = $1`,
      [campaignId],
    );
    for (const email of ['ada@example.com', 'bob@example.com']) {
      const links = linksOf(
        sink.messages.find((m) => m.to[0] === email)!,
        publicUrl(),
      );
      await request(api.server).get(links.pixel).set('User-Agent', BROWSER).expect(200);
      await request(api.server).get(links.clicks[0].path).set('User-Agent', BROWSER).expect(302);
    }
    await request(api.server)
      .post('/v1/conversions')
      .set('Authorization', auth)
      .send({ email: 'ada@example.com', amount_cents: 4999, currency: 'EUR' })
      .expect(201);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
    await env?.dispose();
    await sink?.close();
    await receiver?.stop();
  });

  const nav = (name: string) =>
    page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
  const tile = (label: string) =>
    page
      .locator('.tile')
      .filter({ has: page.getByText(label, { exact: true }) })
      .locator('dd');

  it("shows a campaign's report: rates, links, revenue", async () => {
    await nav('Campaigns');
    await page.getByRole('link', { name: 'Spring sale' }).click();
    await page.getByRole('heading', { name: 'Report' }).waitFor();
    // Two of three delivered messages were opened and clicked by people.
    await expect(tile('Open rate').textContent()).resolves.toMatch(/66[.,]67\s?%/);
    await expect(tile('Click rate').textContent()).resolves.toMatch(/66[.,]67\s?%/);
    await expect(tile('Unique clicks').textContent()).resolves.toBe('2');
    await expect(tile('Revenue').textContent()).resolves.toMatch(/49[.,]99/);
    const row = page
      .getByRole('table', { name: 'Clicks per link' })
      .getByRole('row', { name: new RegExp(SHOP) });
    await expect(row.getByRole('cell').allTextContents()).resolves.toEqual([SHOP, '2', '2', '0']);
    await screenshot(page, 'report-campaign');
  });

  it('shows the account overview with the daily series', async () => {
    await nav('Overview');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await expect(tile('Sent').textContent()).resolves.toBe('3');
    await expect(tile('Delivered').textContent()).resolves.toBe('3');
    await expect(
      page.getByTestId('daily-chart').first().getAttribute('aria-label'),
    ).resolves.toMatch(/3 sent, 3 delivered/);
    await page.getByRole('button', { name: '7 days' }).click();
    await page.getByRole('heading', { name: 'Last 7 days' }).waitFor();
    await screenshot(page, 'report-overview');
  });

  it('adds a webhook endpoint, shows its secret once, lists and retries deliveries', async () => {
    await nav('Webhooks');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByLabel('URL').fill(receiver.url);
    await page.getByLabel('Description').fill('CRM sync');
    await page.getByRole('button', { name: 'Add endpoint' }).last().click();
    const secret = await page.getByLabel(/Signing secret for/).inputValue();
    expect(secret).toMatch(/^whsec_/);
    receiver.secret = secret;
    await screenshot(page, 'webhooks-secret', false);
    await page.getByRole('button', { name: 'I have stored it safely' }).click();
    await page.getByRole('link', { name: receiver.url }).click();
    await page.getByRole('heading', { name: 'CRM sync' }).waitFor();
    await expect(page.getByText(/whsec_/).count()).resolves.toBe(0); // never shown again

    await request(api.server)
      .post('/v1/subscribers')
      .set('Authorization', auth)
      .send({ email: 'dee@example.com' })
      .expect(201);
    const first = await waitFor(() =>
      receiver.received.find((r) => r.event?.type === 'subscriber.created'),
    );
    await page.reload();
    const row = page.getByTestId('delivery-row').filter({ hasText: 'subscriber.created' });
    await row.getByText('succeeded').waitFor();
    await expect(row.getByRole('cell').nth(3).textContent()).resolves.toMatch(/^200/);
    await row.getByRole('button', { name: /Retry/ }).click();
    await waitFor(() => receiver.received.filter((r) => r.id === first.id).length === 2);
    expect(receiver.received.every((r) => r.event !== undefined)).toBe(true);
    await screenshot(page, 'webhooks-log');
  });

  it('shows why an endpoint was disabled, and enables it again', async () => {
    await env.sql(
      `UPDATE webhook_endpoints SET enabled = false,
         disabled_reason = 'Every delivery failed since 2026-11-01 10:00 UTC (more than 5 days); the last: HTTP 500'`,
    );
    await page.reload();
    await expect(page.getByTestId('disabled-reason').textContent()).resolves.toMatch(/HTTP 500/);
    await screenshot(page, 'webhooks-disabled');
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByRole('button', { name: 'Disable' }).waitFor();
    await expect(page.getByTestId('disabled-reason').count()).resolves.toBe(0);
  });
});
