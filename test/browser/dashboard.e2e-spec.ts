import type { AddressInfo } from 'node:net';
import { SCOPES } from '../../src/auth/scopes';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { TestApi, TestEnv } from '../support/test-env';
import { ensureWebBuild, hasChromium, launchChromium, screenshot } from './browser';

/**
 * The dashboard in a real browser: a person signs up, issues a key and sees it work
 * and stop working on /v1, builds a template, a segment and a campaign, sends it and watches
 * it finish, erases a subscriber, and reads the audit log. Every page is screenshotted into
 * var/screenshots/ for a human to look at.
 */
if (!hasChromium) {
  console.warn(
    'Skipping the dashboard browser tests: /usr/bin/chromium is missing. ' +
      'Install it with: apt-get update && apt-get install -y chromium',
  );
}

/** The part of the page's globals the animation wait reads (the tests compile without DOM types). */
interface AnimatedPage {
  document: { getAnimations(): unknown[] };
}

const describeWithChromium = hasChromium ? describe : describe.skip;
// A real browser on a busy two-core machine: generous, so slowness is not mistaken for failure.
jest.setTimeout(180_000);

const EMAIL = 'owner@acme.test';
const PASSWORD = 'a long and careful passphrase';

describeWithChromium('dashboard in Chromium', () => {
  let env: TestEnv;
  let api: TestApi;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let base: string;

  beforeAll(async () => {
    ensureWebBuild();
    env = await TestEnv.create();
    api = await TestApi.start(env);
    await api.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = api.app.getHttpServer().address() as AddressInfo;
    base = `http://127.0.0.1:${port}`;
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    page = await context.newPage();
    page.setDefaultTimeout(30_000);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
    await env?.dispose();
  });

  /** Calls the public API as a customer's code would. */
  const v1 = (method: string, path: string, key: string, body?: object) =>
    fetch(`${base}/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body ? JSON.stringify(body) : undefined,
    });

  /** Follows a link of the main navigation. */
  const nav = (name: string) =>
    page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).click();

  let secret = '';

  it('signs up, and lands signed in', async () => {
    await page.goto(`${base}/dashboard`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await screenshot(page, '01-sign-in');

    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByLabel('Organisation').fill('Acme Outfitters');
    await page.getByLabel('Your name').fill('Olive Owner');
    await page.getByLabel('Work email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await screenshot(page, '02-sign-up');
    await page.getByRole('button', { name: 'Create account' }).click();

    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    expect(page.url()).toBe(`${base}/dashboard/keys`);
    const cookies = await context.cookies();
    const session = cookies.find((cookie) => cookie.name === 'herald_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/dashboard' });
  });

  it('creates a key with two scopes and shows its secret once', async () => {
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create API key' });
    await dialog.getByLabel('Name').fill('Storefront');
    // Every scope is offered, grouped by resource.
    await expect(dialog.getByRole('checkbox').count()).resolves.toBe(SCOPES.length);
    await dialog.getByRole('checkbox', { name: /subscribers:read/ }).check();
    await dialog.getByRole('checkbox', { name: /subscribers:write/ }).check();
    await screenshot(page, '03-create-key', false);
    await dialog.getByRole('button', { name: 'Create key' }).click();

    const reveal = page.getByRole('dialog', { name: 'Your new API key' });
    await reveal.getByText('you will not see it again').waitFor();
    secret = await reveal.getByLabel(/Secret for/).inputValue();
    expect(secret).toMatch(/^sk_live_[A-Za-z0-9_-]{43}$/);
    await reveal.getByRole('button', { name: 'Copy' }).click();
    // A string, because this file compiles without the DOM library.
    await expect(page.evaluate('navigator.clipboard.readText()')).resolves.toBe(secret);
    await screenshot(page, '04-key-secret', false);
    await reveal.getByRole('button', { name: 'I have stored it safely' }).click();

    const row = page.getByRole('row', { name: /Storefront/ });
    await row.getByText(`sk_live_…${secret.slice(-4)}`).waitFor();
    await row.getByText('active').waitFor();
    // Shown once: neither the page nor a reload has it any more.
    expect(await page.content()).not.toContain(secret);
    await page.reload();
    await page.getByRole('row', { name: /Storefront/ }).waitFor();
    expect(await page.content()).not.toContain(secret);
  });

  it('the key works on /v1 within its scopes and is refused outside them', async () => {
    const people = [
      { email: 'ada@example.com', first_name: 'Ada', city: 'London', tags: ['vip'] },
      { email: 'grace@example.com', first_name: 'Grace', city: 'Arlington', tags: ['vip'] },
      { email: 'linus@example.com', first_name: 'Linus', city: 'Helsinki', tags: [] },
    ];
    for (const person of people) {
      expect((await v1('POST', '/subscribers', secret, person)).status).toBe(201);
    }
    const list = await v1('GET', '/subscribers', secret);
    expect(list.status).toBe(200);
    expect(((await list.json()) as { data: unknown[] }).data).toHaveLength(3);

    const templates = await v1('GET', '/templates', secret);
    expect(templates.status).toBe(403);
    expect(await templates.json()).toMatchObject({ error: { code: 'insufficient_scope' } });

    await page.reload();
    await page
      .getByRole('row', { name: /Storefront/ })
      .getByText('just now')
      .waitFor();
    await screenshot(page, '05-keys');
  });

  it('revokes the key after a confirmation, and /v1 answers 401', async () => {
    await page.getByRole('button', { name: 'Revoke Storefront' }).click();
    const confirm = page.getByRole('dialog', { name: /Revoke “Storefront”/ });
    await confirm.getByText('will be refused with 401').waitFor();
    await screenshot(page, '06-revoke-confirm', false);
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    await page
      .getByRole('row', { name: /Storefront/ })
      .getByText('revoked')
      .waitFor();

    const refused = await v1('GET', '/subscribers', secret);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: { code: 'invalid_credential' } });
  });

  it('searches, opens and edits a subscriber', async () => {
    await nav('Subscribers');
    await page.getByRole('link', { name: 'grace@example.com' }).waitFor();
    await screenshot(page, '07-subscribers');

    await page.getByLabel('Search by email').fill('grac');
    await page.getByRole('link', { name: 'ada@example.com' }).waitFor({ state: 'detached' });
    await page.getByRole('link', { name: 'grace@example.com' }).click();
    await page.getByRole('heading', { name: 'grace@example.com' }).waitFor();
    await page.getByRole('heading', { name: 'Statistics' }).waitFor();
    await screenshot(page, '08-subscriber');

    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Last name').fill('Hopper');
    await page.getByLabel('Country code').fill('US');
    await screenshot(page, '09-subscriber-edit');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Grace Hopper').waitFor();
  });

  it('writes a template with a live preview', async () => {
    await nav('Templates');
    await page.getByRole('link', { name: 'New template' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Spring welcome');
    await page.getByLabel('Subject', { exact: true }).fill('Spring is here, {{first_name}}');
    await page
      .getByLabel('HTML body')
      .fill('<h1 style="color:#4338ca">Hello {{first_name}}</h1><p>See you in {{city}}.</p>');
    await page.getByTestId('preview-subject').getByText('Spring is here, Ada').waitFor();
    const frame = page.frameLocator('iframe[title="Rendered HTML email"]');
    await frame.getByText('See you in London.').waitFor();
    await screenshot(page, '10-template-editor');
    // The same preview with a real subscriber's fields.
    await page.getByLabel('Preview as subscriber').fill('grace@example.com');
    await page.getByTestId('preview-subject').getByText('Spring is here, Grace').waitFor();
    await frame.getByText('See you in Arlington.').waitFor();
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.getByRole('heading', { name: 'Spring welcome' }).waitFor();
    await nav('Templates');
    await page.getByRole('link', { name: 'Spring welcome' }).waitFor();
    await screenshot(page, '10b-templates');
  });

  it('builds a segment with a live count', async () => {
    await nav('Segments');
    await page.getByRole('link', { name: 'New segment' }).click();
    await page.getByLabel('Name').fill('VIPs');
    const rule = page.getByRole('listitem', { name: 'Rule 1' });
    await rule.getByLabel('Field').selectOption('tags');
    await rule.getByLabel('Condition').selectOption('contains');
    await rule.getByLabel('Value').fill('vip');
    await page.getByTestId('segment-count').getByText('2 subscribers match').waitFor();
    await page.getByRole('button', { name: '+ Add rule' }).click();
    const second = page.getByRole('listitem', { name: 'Rule 2' });
    await second.getByLabel('Field').selectOption('city');
    await second.getByLabel('Value').fill('London');
    await page.getByTestId('segment-count').getByText('1 subscriber matches').waitFor();
    await screenshot(page, '11-segment-builder');
    await second.getByRole('button', { name: 'Remove rule 2' }).click();
    await page.getByTestId('segment-count').getByText('2 subscribers match').waitFor();
    await page.getByRole('button', { name: 'Create segment' }).click();
    await page.getByRole('heading', { name: 'VIPs' }).waitFor();
    await nav('Segments');
    await page.getByRole('row', { name: /VIPs/ }).getByText('tags contains “vip”').waitFor();
    await screenshot(page, '11b-segments');
  });

  it('creates a campaign, confirms the recipient count, sends it and watches it finish', async () => {
    await nav('Campaigns');
    await page.getByRole('link', { name: 'New campaign' }).click();
    await page.getByLabel('Name').fill('Spring launch');
    await page.getByLabel('Template').selectOption({ label: 'Spring welcome' });
    await page.getByLabel('Audience').selectOption({ label: 'Segment: VIPs' });
    await expect(page.getByLabel('Subject').inputValue()).resolves.toBe(
      'Spring is here, {{first_name}}',
    );
    await screenshot(page, '12-campaign-new');
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await page.getByRole('heading', { name: 'Spring launch' }).waitFor();
    await screenshot(page, '13-campaign-draft');

    await page.getByRole('button', { name: 'Send…' }).click();
    const confirm = page.getByRole('dialog', { name: /Send “Spring launch”/ });
    await confirm.getByTestId('send-count').getByText('2 subscribers').waitFor();
    // The account's first send asks for the postal address campaign footers show.
    const send = confirm.getByRole('button', { name: 'Send to 2' });
    expect(await send.isDisabled()).toBe(true);
    await confirm
      .getByLabel('Your postal address')
      .fill('Acme Outfitters\n1 Harbour Road\nPortsmouth');
    await screenshot(page, '14-campaign-send-confirm', false);
    await send.click();

    const progress = page.getByRole('progressbar', { name: 'Send progress' });
    await progress.waitFor();
    // The page polls while sending; the bar reaches 100 when the last message is out.
    await page
      .locator('[role="progressbar"][aria-label="Send progress"][aria-valuenow="100"]')
      .waitFor({ timeout: 60_000 });
    await page.getByRole('heading', { name: 'Sent', exact: true }).waitFor();
    await page.getByTestId('progress-text').getByText('2 of 2 messages sent').waitFor();
    await page.getByRole('img', { name: /Delivered 2/ }).waitFor();
    for (const tile of ['Hard bounces', 'Soft bounces', 'Complaints', 'Unsubscribes']) {
      await page.getByRole('term').filter({ hasText: tile }).waitFor();
    }
    await page.getByTestId('feedback-rates').getByText('0% bounced (hard)').waitFor();
    // The bar's last stretch is animated (a CSS transition): shoot once it has come to rest.
    // A function, not a string: Playwright polls a string predicate through eval, which the
    // dashboard's Content-Security-Policy (script-src 'self') refuses whenever the first
    // check finds an animation still running.
    await page.waitForFunction(
      () => (globalThis as unknown as AnimatedPage).document.getAnimations().length === 0,
    );
    await screenshot(page, '15-campaign-sent');

    await nav('Campaigns');
    await page
      .getByRole('row', { name: /Spring launch/ })
      .getByText('sent')
      .waitFor();
    await screenshot(page, '16-campaigns');
  });

  it('erases a subscriber after a confirmation that says what it does', async () => {
    await nav('Subscribers');
    await page.getByRole('link', { name: 'linus@example.com' }).click();
    await page.getByRole('button', { name: 'Erase identity…' }).click();
    const confirm = page.getByRole('dialog', { name: 'Erase this identity?' });
    await confirm.getByText('keep only a keyed hash of the address').waitFor();
    const erase = confirm.getByRole('button', { name: 'Erase identity' });
    expect(await erase.isDisabled()).toBe(true);
    await confirm.getByLabel('Type linus@example.com to confirm').fill('linus@example.com');
    await screenshot(page, '17-erase-confirm', false);
    await erase.click();
    await page.getByRole('heading', { name: 'Identity erased' }).waitFor();
    await screenshot(page, '18-erased');

    expect(await env.sql(`SELECT 1 FROM subscribers WHERE email = 'linus@example.com'`)).toEqual(
      [],
    );
    expect(await env.sql('SELECT email_hash FROM erased_identities')).toHaveLength(1);
  });

  it('shows the audit log with hashed subjects only', async () => {
    await nav('Audit log');
    await page.getByRole('cell', { name: /Created an API key/ }).waitFor();
    await page
      .getByRole('cell', { name: /Revoked an API key/ })
      .first()
      .waitFor();
    await page
      .getByRole('cell', { name: /Erased an identity/ })
      .first()
      .waitFor();
    expect(await page.content()).not.toContain('linus@example.com');
    await screenshot(page, '19-audit-log');
  });

  it('fits a phone screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('button', { name: 'Menu' }).click();
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'API keys' })
      .waitFor();
    await screenshot(page, '20-phone-menu');
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await screenshot(page, '21-phone-keys');
  });

  it('signs out, and signs back in', async () => {
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('incorrect').waitFor();
    await screenshot(page, '22-sign-in-failed');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Back where they were when they signed out.
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    expect(page.url()).toBe(`${base}/dashboard/keys`);
  });
});
