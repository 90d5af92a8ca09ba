import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { TestDnsServer } from '../support/dns-server';
import { SmtpSink } from '../support/smtp-sink';
import { TestApi, TestEnv } from '../support/test-env';
import { ensureWebBuild, hasChromium, launchChromium, screenshot } from './browser';

/**
 * The Sender domains page in a real browser: a person adds a domain, copies each DNS record
 * with one click into a DNS server on loopback, sees what verification finds (and why it
 * fails), gets the domain verified, and starts a key rotation. Screenshots go to
 * var/screenshots/domains-*.png.
 */
const describeWithChromium = hasChromium ? describe : describe.skip;
jest.setTimeout(180_000);

describeWithChromium('Sender domains page in Chromium', () => {
  let dns: TestDnsServer;
  let sink: SmtpSink;
  let env: TestEnv;
  let api: TestApi;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let base: string;

  beforeAll(async () => {
    ensureWebBuild();
    dns = await TestDnsServer.start();
    sink = await SmtpSink.start();
    env = await TestEnv.create({
      SMTP_URL: sink.url,
      DNS_SERVERS: dns.address,
      BOUNCE_DOMAIN: 'bounce.herald.test',
    });
    api = await TestApi.start(env);
    await api.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = api.app.getHttpServer().address() as AddressInfo;
    base = `http://127.0.0.1:${port}`;
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    page = await context.newPage();
    page.setDefaultTimeout(30_000);

    await page.goto(`${base}/dashboard/signup`);
    await page.getByLabel('Organisation').fill('Shop Co');
    await page.getByLabel('Your name').fill('Sam Shop');
    await page.getByLabel('Work email').fill('sam@shop.example');
    await page.getByLabel('Password').fill('a long and careful passphrase');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
    await env?.dispose();
    await sink?.close();
    await dns?.close();
  });

  const card = (title: string) => page.getByRole('listitem', { name: `${title} record` });
  const clipboard = () => page.evaluate<string>('navigator.clipboard.readText()');
  /** Copies a record's name and value with their buttons, as someone filling in a DNS form. */
  const copyRecord = async (title: string) => {
    await card(title)
      .getByRole('button', { name: `Copy ${title} name` })
      .click();
    const name = await clipboard();
    await card(title)
      .getByRole('button', { name: `Copy ${title} value` })
      .click();
    return { name, value: await clipboard() };
  };

  it('adds a domain and shows the records to publish', async () => {
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Sender domains' })
      .click();
    await page.getByText('No sender domains yet').waitFor();
    await page.getByRole('button', { name: 'Add domain' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a sender domain' });
    await dialog.getByLabel('Domain').fill('https://shop.example');
    await dialog.getByRole('button', { name: 'Add domain' }).click();
    await dialog.getByText('Enter a domain name, like acme.com').waitFor();
    await dialog.getByLabel('Domain').fill('Shop.Example');
    await screenshot(page, 'domains-01-add', false);
    await dialog.getByRole('button', { name: 'Add domain' }).click();

    await page.getByRole('heading', { name: 'shop.example' }).waitFor();
    await page.getByText('Publish the records below').waitFor();
    for (const title of ['DKIM key', 'SPF', 'Return path', 'DMARC']) {
      await card(title).getByText('pending').waitFor();
    }
    await screenshot(page, 'domains-02-records');
  });

  it('says why verification fails, record by record', async () => {
    // Only a wrong DKIM key is published so far.
    const dkim = await copyRecord('DKIM key');
    expect(dkim.name).toMatch(/^herald-[a-z2-7]{8}\._domainkey\.shop\.example$/);
    expect(dkim.value).toMatch(/^v=DKIM1; k=rsa; p=MIIB/);
    dns.setTxt(dkim.name, 'v=DKIM1; k=rsa; p=MIIBsomethingElse');

    await page.getByRole('button', { name: 'Verify now' }).click();
    await page.getByText('Not verified.').waitFor();
    await card('DKIM key').getByText('mismatch').waitFor();
    await card('DKIM key')
      .getByText(/holds another key/)
      .waitFor();
    await card('Return path').getByText('No MX record at herald-bounces.shop.example.').waitFor();
    await screenshot(page, 'domains-03-failed');
  });

  it('verifies once every record is published as copied', async () => {
    for (const title of ['DKIM key', 'SPF', 'DMARC']) {
      const { name, value } = await copyRecord(title);
      dns.setTxt(name, value);
    }
    const mx = await copyRecord('Return path');
    expect(mx.value).toBe('bounce.herald.test');
    dns.setMx(mx.name, mx.value, 10);

    await page.getByRole('button', { name: 'Verify now' }).click();
    await page.getByText('Verified: mail from').waitFor();
    for (const title of ['DKIM key', 'SPF', 'Return path', 'DMARC']) {
      await card(title).getByText('found').waitFor();
    }
    await expect(page.locator('.dns-record-reason').count()).resolves.toBe(0);
    await screenshot(page, 'domains-04-verified');

    // The key now sends mail as shop.example through the API.
    const [row] = await env.sql<{ status: string }>(
      `SELECT status FROM sender_domains WHERE name = 'shop.example'`,
    );
    expect(row.status).toBe('verified');
  });

  it('starts a key rotation and shows the next record to publish', async () => {
    await page.getByRole('button', { name: 'Rotate key…' }).click();
    const confirm = page.getByRole('dialog', { name: 'Rotate the DKIM key?' });
    await confirm.getByText('The current key keeps signing').waitFor();
    await confirm.getByRole('button', { name: 'Create new key' }).click();
    await page.getByText('Key rotation in progress').waitFor();
    await card('DKIM key (next key)').getByText('pending').waitFor();
    await screenshot(page, 'domains-05-rotation');

    const next = await copyRecord('DKIM key (next key)');
    dns.setTxt(next.name, next.value);
    await page.getByRole('button', { name: 'Verify now' }).click();
    await page.getByText('Verified: mail from').waitFor();
    await expect(page.getByText(next.name.split('.')[0]).count()).resolves.toBeGreaterThan(0);
    await expect(card('DKIM key (next key)').count()).resolves.toBe(0);
  });

  it('lists the domain as verified', async () => {
    await page.getByRole('link', { name: 'Sender domains' }).first().click();
    await page
      .getByRole('row', { name: /shop\.example/ })
      .getByText('verified')
      .waitFor();
    await screenshot(page, 'domains-06-list');
  });
});
