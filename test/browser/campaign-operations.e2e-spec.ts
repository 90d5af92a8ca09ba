import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { SmtpSink } from '../support/smtp-sink';
import { TestApi, TestEnv } from '../support/test-env';
import { waitFor } from '../support/wait-for';
import { ensureWebBuild, hasChromium, launchChromium, screenshot } from './browser';

/**
 * A campaign's operations on its dashboard page, in a real browser: the rendered preview at
 * desktop and phone widths with a chosen subscriber's data, a test send, scheduling in a
 * chosen time zone and unscheduling, then a paced send that is paused, resumed and cancelled,
 * and a duplicate. Screenshots go to var/screenshots/campaign-ops-*.png.
 */
const describeWithChromium = hasChromium ? describe : describe.skip;
jest.setTimeout(240_000);

const AUDIENCE = 60;

describeWithChromium('campaign operations in Chromium', () => {
  let sink: SmtpSink;
  let env: TestEnv;
  let api: TestApi;
  let browser: Browser;
  let page: Page;
  let base: string;
  let campaignId: string;

  beforeAll(async () => {
    ensureWebBuild();
    sink = await SmtpSink.start();
    env = await TestEnv.create({ SMTP_URL: sink.url, ALLOW_UNVERIFIED_FROM: '1' });
    api = await TestApi.start(env);
    await api.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = api.app.getHttpServer().address() as AddressInfo;
    base = `http://127.0.0.1:${port}`;
    browser = await launchChromium();
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      timezoneId: 'Europe/Paris',
    });
    page = await context.newPage();
    page.setDefaultTimeout(30_000);

    await page.goto(`${base}/dashboard/signup`);
    await page.getByLabel('Organisation').fill('Paced Co');
    await page.getByLabel('Your name').fill('Pat Pace');
    await page.getByLabel('Work email').fill('pat@paced.test');
    await page.getByLabel('Password').fill('a long and careful passphrase');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();

    const [account] = await env.sql<{ id: string }>(
      `SELECT id FROM accounts WHERE name = 'Paced Co'`,
    );
    await api.make.subscribers(account.id, AUDIENCE, { domain: 'paced.test' });
    await api.make.subscriber(account.id, {
      email: 'ada@paced.test',
      firstName: 'Ada',
      customFields: { plan: 'gold' },
    });
    await api.make.template(account.id, {
      name: 'Monthly',
      subject: 'Hello {{first_name}}',
      html: '<html><body><h1>Hi {{first_name}}</h1><p>Your plan: {{plan}}</p></body></html>',
      text: null,
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
    await env?.dispose();
    await sink?.close();
  });

  const badge = (status: string) =>
    page.locator('.page-description .badge', { hasText: new RegExp(`^${status}$`) });
  const preview = () => page.frameLocator('iframe[title^="Campaign email"]');

  it('creates a paced campaign and previews it at desktop and phone widths as a subscriber', async () => {
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Campaigns' })
      .click();
    await page.getByRole('link', { name: 'New campaign' }).click();
    await page.getByLabel('Name').fill('Monthly news');
    await page.getByLabel('Template').selectOption({ label: 'Monthly' });
    await page.getByLabel('Send pace (optional)').fill('60');
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await page.getByRole('heading', { name: 'Monthly news' }).waitFor();
    campaignId = /campaigns\/([0-9a-f-]+)/.exec(page.url())![1];

    // Without a subscriber, merge fields render empty; with one, that person's data.
    await page
      .getByTestId('campaign-preview-subject')
      .getByText('Hello', { exact: true })
      .waitFor();
    await page.getByLabel('Preview as subscriber').fill('ada@paced.test');
    await page.getByTestId('campaign-preview-subject').getByText('Hello Ada').waitFor();
    await preview().getByRole('heading', { name: 'Hi Ada' }).waitFor();
    await preview().getByText('Your plan: gold').waitFor();
    // The footer recipients will get, with the account's name.
    await preview().getByText('Paced Co').waitFor();
    const desktop = await page.getByTestId('preview-viewport').boundingBox();
    expect(desktop!.width).toBeGreaterThan(600);
    await screenshot(page, 'campaign-ops-01-preview-desktop');

    await page
      .getByRole('group', { name: 'Preview width' })
      .getByRole('button', { name: 'Mobile' })
      .click();
    await waitFor(
      async () => (await page.getByTestId('preview-viewport').boundingBox())?.width === 375,
    );
    await preview().getByRole('heading', { name: 'Hi Ada' }).waitFor();
    await screenshot(page, 'campaign-ops-02-preview-mobile');
    await page
      .getByRole('group', { name: 'Preview format' })
      .getByRole('button', { name: 'Text' })
      .click();
    await page.locator('.preview-text').getByText('Hi Ada').waitFor();
  });

  it('sends a test to two addresses, marked as a test', async () => {
    await page.getByRole('button', { name: 'Send test…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Send a test' });
    // The signed-in person's address is offered.
    await expect(dialog.getByLabel('Send to').inputValue()).resolves.toBe('pat@paced.test');
    await dialog.getByLabel('Send to').fill('ada@paced.test, not-an-address');
    await dialog.getByRole('button', { name: 'Send test' }).click();
    await dialog.getByText('Address 2: Enter an email address, like name@example.com.').waitFor();
    await dialog.getByLabel('Send to').fill('ada@paced.test\nboss@elsewhere.test');
    await dialog.getByRole('button', { name: 'Send test' }).click();
    await dialog.getByTestId('test-results').getByText('boss@elsewhere.test').waitFor();
    await screenshot(page, 'campaign-ops-03-test-sent', false);
    const ada = sink.messages.find((m) => m.to[0] === 'ada@paced.test');
    expect(ada?.headers.subject).toBe('[Test] Hello Ada');
    expect(ada?.headers['x-herald-test']).toBe('true');
    expect(sink.messages.map((m) => m.to[0]).sort()).toEqual([
      'ada@paced.test',
      'boss@elsewhere.test',
    ]);
    await dialog.getByRole('button', { name: 'Close', exact: true }).first().click();
  });

  it('schedules in a chosen time zone, shows it, and unschedules', async () => {
    await page.getByRole('button', { name: 'Schedule…' }).click();
    const dialog = page.getByRole('dialog', { name: /Schedule “Monthly news”/ });
    // Tomorrow at 09:30 in New York, whatever the browser's own zone (Paris here).
    const tomorrow = new Date(Date.now() + 24 * 3600_000);
    const day = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York' }).format(tomorrow);
    await dialog.getByLabel('Time zone').selectOption('America/New_York');
    await dialog.getByLabel('Send at').fill(`${day}T09:30`);
    await dialog
      .getByTestId('schedule-summary')
      .getByText(/America\/New_York/)
      .waitFor();
    await dialog
      .getByTestId('schedule-summary')
      .getByText(/Europe\/Paris/)
      .waitFor();
    await screenshot(page, 'campaign-ops-04-schedule', false);
    await dialog.getByRole('button', { name: 'Schedule', exact: true }).click();

    await badge('scheduled').waitFor();
    await page
      .getByTestId('progress-text')
      .getByText(/Scheduled for/)
      .waitFor();
    const [row] = await env.sql<{ send_at: Date; status: string }>(
      `SELECT send_at, status FROM campaigns WHERE id = $1`,
      [campaignId],
    );
    expect(row.status).toBe('scheduled');
    const inNewYork = new Intl.DateTimeFormat('en-CA', {
      timeZone: 'America/New_York',
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    }).format(row.send_at);
    expect(inNewYork).toBe(`${day}, 09:30`);
    await screenshot(page, 'campaign-ops-05-scheduled');

    await page.getByRole('button', { name: 'Unschedule' }).click();
    await badge('draft').waitFor();
  });

  it('sends at its pace, pauses, resumes and cancels; nobody pending is sent after', async () => {
    await page.getByRole('button', { name: 'Send…' }).click();
    const confirm = page.getByRole('dialog', { name: /Send “Monthly news”/ });
    await confirm.getByLabel('Your postal address').fill('Paced Co\n1 Slow Lane');
    await confirm.getByRole('button', { name: `Send to ${AUDIENCE + 1}` }).click();
    await badge('sending').waitFor();
    // 60 a minute: about a minute to go, and the page says when it should be done.
    await page
      .getByTestId('progress-text')
      .getByText(/expected to finish at/)
      .waitFor();
    await screenshot(page, 'campaign-ops-06-sending');

    await page.getByRole('button', { name: 'Pause' }).click();
    await badge('paused').waitFor();
    await page
      .getByTestId('progress-text')
      .getByText(/paused/)
      .waitFor();
    await screenshot(page, 'campaign-ops-07-paused');
    await page.getByRole('button', { name: 'Resume' }).click();
    await badge('sending').waitFor();

    await page.getByRole('button', { name: 'Cancel campaign…' }).click();
    const cancel = page.getByRole('dialog', { name: /Cancel “Monthly news”/ });
    await screenshot(page, 'campaign-ops-08-cancel', false);
    await cancel.getByRole('button', { name: 'Cancel campaign' }).click();
    await badge('cancelled').waitFor();
    await page
      .getByTestId('progress-text')
      .getByText(/never sent/)
      .waitFor();
    await screenshot(page, 'campaign-ops-09-cancelled');

    // Whatever was in flight finishes; then the ledger and the relay agree, and stay so.
    const counts = async () => {
      const [row] = await env.sql<{
        sent: string;
        sending: string;
        pending: string;
        skipped: string;
      }>(
        `SELECT count(*) FILTER (WHERE status = 'sent') AS sent,
                count(*) FILTER (WHERE status = 'sending') AS sending,
                count(*) FILTER (WHERE status = 'pending') AS pending,
                count(*) FILTER (WHERE status = 'skipped') AS skipped
           FROM campaign_recipients WHERE campaign_id = $1`,
        [campaignId],
      );
      return {
        sent: Number(row.sent),
        sending: Number(row.sending),
        pending: Number(row.pending),
        skipped: Number(row.skipped),
      };
    };
    const settled = await waitFor(async () => {
      const now = await counts();
      return now.sending === 0 ? now : undefined;
    });
    const campaignMail = sink.messages.filter(
      (m) => m.to[0].endsWith('@paced.test') && !m.headers.subject.startsWith('[Test]'),
    );
    expect(settled.pending).toBe(0);
    expect(settled.sent).toBe(campaignMail.length);
    expect(settled.sent).toBeGreaterThan(0);
    expect(settled.sent + settled.skipped).toBe(AUDIENCE + 1);
  });

  it('duplicates the cancelled campaign into a new draft', async () => {
    await page.getByRole('button', { name: 'Duplicate' }).click();
    await page.getByRole('heading', { name: 'Monthly news (copy)' }).waitFor();
    await badge('draft').waitFor();
    expect(page.url()).not.toContain(campaignId);
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Campaigns' })
      .click();
    await page
      .getByRole('row', { name: /Monthly news \(copy\)/ })
      .getByText('draft')
      .waitFor();
    await page
      .getByRole('row')
      .filter({ hasText: 'Monthly news' })
      .filter({ hasNotText: '(copy)' })
      .getByText('cancelled')
      .waitFor();
    await screenshot(page, 'campaign-ops-10-list');
  });
});
