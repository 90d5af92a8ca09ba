import { simpleParser } from 'mailparser';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { waitUntilSent } from '../support/campaign-fixtures';
import { SmtpSink } from '../support/smtp-sink';
import { TestApi, TestEnv } from '../support/test-env';
import { waitFor } from '../support/wait-for';
import { ensureWebBuild, hasChromium, launchChromium, screenshot } from './browser';

/**
 * The opt-out a recipient sees, in a real browser: the account sets its postal address in
 * the dashboard, a campaign without an unsubscribe link of its own gets Herald's footer, and
 * its links lead to an unsubscribe page that asks before acting and offers the way back.
 */
const describeWithChromium = hasChromium ? describe : describe.skip;
jest.setTimeout(180_000);

/** A free loopback port, so PUBLIC_URL (in every link of every message) can name it. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describeWithChromium('opt-out in Chromium', () => {
  let sink: SmtpSink;
  let env: TestEnv;
  let api: TestApi;
  let browser: Browser;
  let page: Page;
  let base: string;

  beforeAll(async () => {
    ensureWebBuild();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    sink = await SmtpSink.start();
    env = await TestEnv.create({
      SMTP_URL: sink.url,
      PUBLIC_URL: base,
      PORT: String(port),
      ALLOW_UNVERIFIED_FROM: '1',
    });
    api = await TestApi.start(env);
    await api.app.listen({ port, host: '127.0.0.1' });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1100, height: 800 } })).newPage();
    page.setDefaultTimeout(30_000);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await api?.close();
    await env?.dispose();
    await sink?.close();
  });

  const statusOf = async (email: string) =>
    (
      await env.sql<{ status: string }>('SELECT status FROM subscribers WHERE email = $1', [email])
    )[0].status;

  it('saves the postal address on the settings page', async () => {
    await page.goto(`${base}/dashboard/signup`);
    await page.getByLabel('Organisation').fill('Opt Out & Co');
    await page.getByLabel('Your name').fill('Olga');
    await page.getByLabel('Work email').fill('olga@optout.test');
    await page.getByLabel('Password').fill('a long and careful passphrase');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();

    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Settings' })
      .click();
    const field = page.getByLabel('Postal address');
    await field.fill('Opt Out & Co\n7 Quay Street\nBristol BS1');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    await screenshot(page, 'opt-out-01-settings');
    await page.reload();
    await expect(page.getByLabel('Postal address').inputValue()).resolves.toBe(
      'Opt Out & Co\n7 Quay Street\nBristol BS1',
    );
  });

  it('puts the footer into mail without a link, and its unsubscribe page asks, acts and undoes', async () => {
    const [{ id: accountId }] = await env.sql<{ id: string }>('SELECT id::text FROM accounts');
    const { key } = await api.key(accountId);
    const v1 = (path: string, body: object) =>
      fetch(`${base}/v1${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const email = 'reader@people.test';
    expect((await v1('/subscribers', { email, first_name: 'Rita' })).status).toBe(201);
    const created = (await (
      await v1('/campaigns', {
        name: 'Plain',
        subject: 'Hello',
        from: 'Opt Out <news@optout.test>',
        html: '<html><body><h1>Hello {{first_name}}</h1><p>News without a way out.</p></body></html>',
      })
    ).json()) as { id: string };
    expect((await v1(`/campaigns/${created.id}/send`, {})).status).toBe(202);
    await waitUntilSent(api.server, `Bearer ${key}`, created.id);
    const received = await waitFor(() => sink.messages.find((m) => m.to[0] === email));
    const mail = await simpleParser(received.raw);

    // The message as a mail client would show it.
    await page.setContent(mail.html as string);
    await page.getByText('Opt Out & Co · Opt Out & Co, 7 Quay Street, Bristol BS1').waitFor();
    await screenshot(page, 'opt-out-02-footer');
    await page.getByRole('link', { name: 'Unsubscribe' }).click();

    await page.getByRole('heading', { name: 'Unsubscribe' }).waitFor();
    await page.getByText('Stop receiving emails from Opt Out & Co?').waitFor();
    await screenshot(page, 'opt-out-03-unsubscribe-page');
    expect(await statusOf(email)).toBe('subscribed'); // opening the page did nothing

    await page.getByRole('button', { name: 'Unsubscribe' }).click();
    await page.getByRole('heading', { name: 'Unsubscribed' }).waitFor();
    expect(await statusOf(email)).toBe('unsubscribed');
    await screenshot(page, 'opt-out-04-unsubscribed');

    await page.getByRole('button', { name: 'Subscribe again' }).click();
    await page.getByRole('heading', { name: 'Subscribed again' }).waitFor();
    expect(await statusOf(email)).toBe('subscribed');
    await page.getByRole('link', { name: 'Manage your subscription' }).click();
    await page.getByText('You receive emails from Opt Out & Co at this address.').waitFor();
    await screenshot(page, 'opt-out-05-preferences');
  });

  it('lists suppressed addresses, suppresses one by hand and removes it after a confirmation', async () => {
    await page.goto(`${base}/dashboard/suppressions`);
    await page.getByRole('heading', { name: 'Suppressions' }).waitFor();
    await page.getByText('No suppressed addresses').waitFor();

    await page.getByRole('button', { name: 'Suppress an address' }).click();
    await page.getByLabel('Email').fill(' Blocked@People.test ');
    await page.getByRole('button', { name: 'Suppress', exact: true }).click();
    const row = page.getByRole('row', { name: /blocked@people\.test/ });
    await row.getByText('Added by hand').waitFor();
    await screenshot(page, 'opt-out-06-suppressions');
    const listed = await env.sql<{ reason: string }>(
      'SELECT reason FROM suppressions WHERE email_normalized = $1',
      ['blocked@people.test'],
    );
    expect(listed).toEqual([{ reason: 'manual' }]);

    await row.getByRole('button', { name: 'Remove blocked@people.test' }).click();
    await page.getByRole('dialog').getByText('The removal is recorded in the audit log.').waitFor();
    await page.getByRole('button', { name: 'Remove from the list' }).click();
    await page.getByText('No suppressed addresses').waitFor();
    const left = await env.sql('SELECT 1 FROM suppressions WHERE email_normalized = $1', [
      'blocked@people.test',
    ]);
    expect(left).toHaveLength(0);
  });
});
