import type { AddressInfo } from 'node:net';
import type { Browser, Locator, Page } from 'playwright-core';
import { DashboardAgent } from '../e2e/dashboard-agent';
import { TestApi, TestEnv } from '../support/test-env';
import { ensureWebBuild, hasChromium, launchChromium, screenshot } from './browser';

/**
 * What people read when something is wrong, in a real browser: a refused form says so in
 * plain words next to the field it is about (never a validator's key or a raw path), a
 * template that does not compile says on which line and column and puts the cursor there,
 * and the list pages fit a 375-px phone without scrolling sideways.
 */
if (!hasChromium) {
  console.warn(
    'Skipping the human-messages browser tests: /usr/bin/chromium is missing. ' +
      'Install it with: apt-get update && apt-get install -y chromium',
  );
}
const describeWithChromium = hasChromium ? describe : describe.skip;
jest.setTimeout(180_000);

const EMAIL = 'olive@acme.test';
const PASSWORD = 'a long and careful passphrase';
/**
 * The browser's window, as far as these tests read it (this file compiles without the DOM
 * library), cast from `globalThis` inside the functions that run in the page.
 */
interface Window {
  document: { activeElement: unknown; documentElement: { scrollWidth: number } };
  innerWidth: number;
  getComputedStyle(element: unknown, pseudo: string): { content: string };
}

/** What class-validator and the API's paths look like; none of it may reach a person. */
const DEVELOPER_WORDS = /isEmail|isString|must be shorter than or equal|must be an email|_id\b/;

describeWithChromium('plain messages and phone-sized lists in Chromium', () => {
  let env: TestEnv;
  let api: TestApi;
  let browser: Browser;
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
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    page = await context.newPage();
    page.setDefaultTimeout(30_000);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
    await env?.dispose();
  });

  const nav = (name: string) =>
    page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).click();

  /** The error a control announces: the elements its aria-describedby names as errors. */
  async function errorOf(control: Locator): Promise<string> {
    await control.and(page.locator('[aria-invalid="true"]')).waitFor();
    const ids = ((await control.getAttribute('aria-describedby')) ?? '').split(' ');
    const errors = ids.filter((id) => id.endsWith('-error'));
    expect(errors).toHaveLength(1);
    return page.locator(`[id="${errors[0]}"]`).innerText();
  }

  it('leads / to the dashboard', async () => {
    await page.goto(`${base}/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(page.url()).toMatch(new RegExp(`^${base}/dashboard`));
  });

  it('says what is wrong with a sign-up next to each field', async () => {
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByLabel('Organisation').fill('Acme Outfitters');
    await page.getByLabel('Work email').fill('olive-at-acme');
    await page.getByLabel('Password').fill('too short');
    await page.getByRole('button', { name: 'Create account' }).click();

    await expect(errorOf(page.getByLabel('Work email'))).resolves.toBe(
      'Enter an email address, like name@example.com.',
    );
    expect(await page.locator('main').innerText()).not.toMatch(DEVELOPER_WORDS);
    await screenshot(page, 'human-01-sign-up-errors');
    // The password's length is checked once the rest is well-formed.
    await page.getByLabel('Work email').fill(EMAIL);
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect(errorOf(page.getByLabel('Password'))).resolves.toBe('Use at least 12 characters.');
    await expect(page.getByLabel('Work email').getAttribute('aria-invalid')).resolves.toBeNull();

    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
  });

  it('says what is wrong with a new subscriber next to each field, lists included', async () => {
    await nav('Subscribers');
    await page.getByRole('button', { name: 'Add subscriber' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add subscriber' });
    await dialog.getByLabel('Email').fill('ada@');
    await dialog.getByLabel('First name').fill('A'.repeat(300));
    await dialog.getByLabel('Tags').fill(`vip, ${'x'.repeat(120)}`);
    await dialog.getByRole('button', { name: 'Add subscriber' }).click();

    await expect(errorOf(dialog.getByLabel('Email'))).resolves.toBe(
      'Enter an email address, like name@example.com.',
    );
    await expect(errorOf(dialog.getByLabel('First name'))).resolves.toBe(
      'Use at most 255 characters.',
    );
    await expect(errorOf(dialog.getByLabel('Tags'))).resolves.toBe(
      'Keep each one to at most 100 characters.',
    );
    expect(await dialog.innerText()).not.toMatch(DEVELOPER_WORDS);
    await screenshot(page, 'human-02-subscriber-errors', false);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });

  it('shows where a template goes wrong, and puts the cursor there', async () => {
    await nav('Templates');
    await page.getByRole('link', { name: 'New template' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Broken welcome');
    const html = '<h1>Hello {{first_name}}</h1>\n<p>{{#if vip}}Thanks for being a VIP</p>';
    await page.getByLabel('HTML body').fill(html);
    await page.getByLabel('Plain-text body').fill('Hello {{first_name}');
    await page.getByRole('button', { name: 'Create template' }).click();

    const htmlBody = page.getByLabel('HTML body');
    await expect(errorOf(htmlBody)).resolves.toBe(
      'On line 2, column 4: {{#if}} is never closed; add {{/if}} where it ends.',
    );
    await expect(errorOf(page.getByLabel('Plain-text body'))).resolves.toBe(
      'On line 1, column 7: this {{…}} tag is never closed with }}.',
    );
    // The cursor waits at line 2, column 4 of the HTML body: on the {{#if}}.
    const caret = await htmlBody.evaluate((area) => ({
      focused: (globalThis as unknown as Window).document.activeElement === area,
      at: (area as unknown as { selectionStart: number }).selectionStart,
    }));
    expect(caret).toEqual({ focused: true, at: html.indexOf('{{#if') });
    // The live preview says the same, for the field by its label.
    await page
      .getByRole('alert')
      .getByText('HTML body: On line 2, column 4: {{#if}} is never closed')
      .waitFor();
    await screenshot(page, 'human-03-template-error');

    await page
      .getByLabel('HTML body')
      .fill('<h1>Hello {{first_name}}</h1>\n<p>{{#if vip}}Thanks for being a VIP{{/if}}</p>');
    await page.getByLabel('Plain-text body').fill('Hello {{first_name}}');
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.getByRole('heading', { name: 'Broken welcome' }).waitFor();
  });

  it('says what is wrong with a campaign’s sender next to it', async () => {
    await nav('Campaigns');
    await page.getByRole('link', { name: 'New campaign' }).click();
    await page.getByLabel('Name').fill('Autumn news');
    await page.getByLabel('Template').selectOption({ label: 'Broken welcome' });
    await page.getByLabel('From').fill('Acme at acme dot test');
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await expect(errorOf(page.getByLabel('From'))).resolves.toBe(
      'Enter a sender address, like news@example.com or Acme <news@example.com>.',
    );
    expect(await page.locator('main').innerText()).not.toMatch(DEVELOPER_WORDS);
    await screenshot(page, 'human-04-campaign-errors');
  });

  it('fits every list on a 375-px phone: no sideways scrolling, each value labelled', async () => {
    // Enough to fill the lists: long addresses, many tags, campaigns in several states.
    const agent = new DashboardAgent(api);
    expect((await agent.signIn(EMAIL, PASSWORD)).status).toBe(200);
    for (let index = 0; index < 12; index++) {
      const created = await agent.post('/dashboard/api/subscribers', {
        email: `someone.with.a.rather.long.address.${index}@subdomain.example-company.test`,
        first_name: 'Maximiliana',
        last_name: 'Featherstonehaugh-Cholmondeley',
        tags: ['customer', 'newsletter', 'vip', 'spring-2025', 'early-adopter'],
      });
      expect(created.status).toBe(201);
    }
    const template = await agent.post('/dashboard/api/templates', {
      name: 'Plain',
      subject: 'A subject line that is long enough to wrap on a phone, {{first_name}}',
      text: 'Hi',
    });
    const segment = await agent.post('/dashboard/api/segments', {
      name: 'Early adopters who opened the spring newsletter',
      filter: { field: 'tags', op: 'contains', value: 'early-adopter' },
    });
    expect(segment.status).toBe(201);
    const suppressed = await agent.post('/dashboard/api/suppressions', {
      email: 'do.not.mail.this.rather.long.address@subdomain.example-company.test',
    });
    expect(suppressed.status).toBe(201);
    for (const name of ['Spring launch with a long campaign name', 'Summer sale']) {
      const campaign = await agent.post('/dashboard/api/campaigns', {
        name,
        subject: 'A subject line that is long enough to wrap on a phone',
        from: 'Acme Outfitters <news@acme.test>',
        template_id: template.body.id,
      });
      expect(campaign.status).toBe(201);
    }

    await page.setViewportSize({ width: 375, height: 812 });
    const pages: [string, string, string][] = [
      ['subscribers', 'Subscribers', 'someone.with.a.rather.long.address.0@'],
      ['campaigns', 'Campaigns', 'Summer sale'],
      ['templates', 'Templates', 'Plain'],
      ['segments', 'Segments', 'Early adopters'],
      ['suppressions', 'Suppressions', 'do.not.mail'],
      ['people', 'People', EMAIL],
      ['keys', 'API keys', ''],
      ['domains', 'Sender domains', ''],
      ['audit', 'Audit log', 'Created the account'],
    ];
    for (const [path, heading, text] of pages) {
      await page.goto(`${base}/dashboard/${path}`);
      await page.getByRole('heading', { name: heading, exact: true }).waitFor();
      if (text)
        await page
          .getByRole('cell', { name: new RegExp(text) })
          .first()
          .waitFor();
      const fits = await page.evaluate(() => ({
        scrollWidth: (globalThis as unknown as Window).document.documentElement.scrollWidth,
        innerWidth: (globalThis as unknown as Window).innerWidth,
      }));
      // Named, so a failure says which page overflows and by how much.
      expect({ path, overflow: Math.max(0, fits.scrollWidth - fits.innerWidth) }).toEqual({
        path,
        overflow: 0,
      });
      await screenshot(page, `human-05-phone-${path}`, false);
    }

    // A card names each value by its column, as the table's headings did.
    await page.goto(`${base}/dashboard/campaigns`);
    const card = page.getByRole('row', { name: /Summer sale/ });
    await expect(card.getByRole('cell').nth(1).getAttribute('data-label')).resolves.toBe('Status');
    const label = await card
      .getByRole('cell')
      .nth(1)
      .evaluate(
        (cell) => (globalThis as unknown as Window).getComputedStyle(cell, '::before').content,
      );
    expect(label).toBe('"Status"');
    // Still a table to a screen reader, with its column headings.
    await expect(page.getByRole('columnheader').allTextContents()).resolves.toEqual([
      'Name',
      'Status',
      'Progress',
      'Recipients',
      'Created',
    ]);
  });
});
