import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { SmtpSink } from '../support/smtp-sink';
import { TestApi, TestEnv } from '../support/test-env';
import { ensureWebBuild, hasChromium, launchChromium, screenshot } from './browser';

/**
 * The automation builder in a real browser: a person builds a three-step automation with a
 * condition (send, then a condition on its open with its two branches side by side, then a
 * second send), sees a mistake reported on the step it concerns, activates it, and watches a
 * new subscriber go through it, and reads why Herald paused it when the reputation guard did.
 * Screenshots go to var/screenshots/automations-*.png.
 */
const describeWithChromium = hasChromium ? describe : describe.skip;
jest.setTimeout(180_000);

describeWithChromium('Automations in Chromium', () => {
  let sink: SmtpSink;
  let env: TestEnv;
  let api: TestApi;
  let browser: Browser;
  let page: Page;
  let base: string;
  let accountId: string;

  beforeAll(async () => {
    ensureWebBuild();
    sink = await SmtpSink.start();
    env = await TestEnv.create({ SMTP_URL: sink.url, ALLOW_UNVERIFIED_FROM: '1' });
    api = await TestApi.start(env);
    await api.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = api.app.getHttpServer().address() as AddressInfo;
    base = `http://127.0.0.1:${port}`;
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.setDefaultTimeout(30_000);

    await page.goto(`${base}/dashboard/signup`);
    await page.getByLabel('Organisation').fill('Drip Co');
    await page.getByLabel('Your name').fill('Dee Drip');
    await page.getByLabel('Work email').fill('dee@drip.example');
    await page.getByLabel('Password').fill('a long and careful passphrase');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    [{ id: accountId }] = await env.sql<{ id: string }>('SELECT id::text FROM accounts');
    await api.make.template(accountId, { name: 'Welcome', subject: 'Welcome aboard' });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
    await env?.dispose();
    await sink?.close();
  });

  const step = (n: number, id: string) => page.getByRole('listitem', { name: `Step ${n}: ${id}` });

  it('builds a three-step automation with a condition, the mistakes shown on their step', async () => {
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Automations' })
      .click();
    await page.getByText('No automations yet').waitFor();
    await page.getByRole('link', { name: 'New automation' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Welcome series');
    await page.getByLabel('Trigger', { exact: true }).selectOption('subscriber_created');

    await page.getByRole('button', { name: 'Send an email', exact: true }).click();
    await page.getByRole('button', { name: 'Wait', exact: true }).click();
    await step(2, 'wait-2').getByLabel('Hours to wait').fill('0');
    await page.getByRole('button', { name: 'Condition', exact: true }).click();
    await page.getByRole('button', { name: 'Send an email', exact: true }).click();
    const condition = step(3, 'condition-3');
    await condition.getByLabel('If the subscriber').selectOption('opened:send-1');
    // The two branches side by side: opened → end, not opened → the second send.
    await condition.getByLabel('Then').selectOption('');
    await condition.getByLabel('Else').selectOption('send-4');
    await screenshot(page, 'automations-01-builder');

    await page.getByRole('button', { name: 'Create automation' }).click();
    // A wait of nothing is refused, and said on that step.
    await step(2, 'wait-2').getByRole('alert').waitFor();
    await screenshot(page, 'automations-02-mistake');
    await step(2, 'wait-2').getByRole('button', { name: 'Remove wait-2' }).click();
    await page.getByRole('button', { name: 'Create automation' }).click();
    await page.getByRole('button', { name: 'Activate' }).waitFor();
    await page.waitForURL(/\/dashboard\/automations\/[0-9a-f-]{36}$/);
  });

  it('activates it and shows a new subscriber going through', async () => {
    await page.getByRole('button', { name: 'Activate' }).click();
    await page.getByRole('button', { name: 'Pause' }).waitFor();
    const [person] = await api.make.subscribers(accountId, 1, {
      prefix: 'newcomer',
      domain: 'drip.example',
    });
    await page.getByLabel('Runs').getByText('1 entered').waitFor();
    await page.getByLabel('Runs').getByText('1 completed').waitFor();
    await page.getByLabel('Figures of send-1').getByText('1 sent').waitFor();
    await page.getByLabel('Figures of send-4').getByText('1 sent').waitFor();
    expect(sink.messages.filter((m) => m.to.includes(person.email))).toHaveLength(2);
    await screenshot(page, 'automations-03-watching');

    // The subscriber's page lists the run.
    await page.goto(`${base}/dashboard/subscribers/${person.id}`);
    await page.getByRole('heading', { name: 'Automations' }).waitFor();
    await page.getByText('completed').first().waitFor();
  });

  it('says why Herald paused it by itself, until it is activated again', async () => {
    // The guard's pause itself is driven end to end in automations-sends.e2e-spec.ts; here
    // the automation is put in that state so the page can be read.
    const [{ id }] = await env.sql<{ id: string }>(
      `UPDATE automations SET status = 'paused', paused_reason = 'complaint_rate'
        WHERE account_id = $1 RETURNING id::text`,
      [accountId],
    );
    await page.goto(`${base}/dashboard/automations/${id}`);
    const notice = page.getByTestId('automation-guard-pause');
    await notice.getByText('too many people marked one of its emails as spam').waitFor();
    await screenshot(page, 'automations-04-guard-paused');
    await page.getByRole('button', { name: 'Activate' }).click();
    await page.getByRole('button', { name: 'Pause' }).waitFor();
    expect(await notice.count()).toBe(0);
  });
});
