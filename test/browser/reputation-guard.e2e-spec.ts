import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { TestApi, TestEnv } from '../support/test-env';
import { ensureWebBuild, hasChromium, launchChromium, screenshot } from './browser';

/**
 * What the dashboard says when the reputation guard paused a campaign, in a real browser:
 * the campaign's page explains which rate passed which limit and what to do (clean the list,
 * then resume); a campaign a person paused has no such explanation; the overview shows each
 * recent campaign's bounce and complaint rates against the limits. The campaigns' counters
 * are written as a send would have left them (the guard's pausing itself has its e2e test).
 * Screenshots go to var/screenshots/guard-*.png.
 */
const describeWithChromium = hasChromium ? describe : describe.skip;
jest.setTimeout(180_000);

describeWithChromium('reputation guard in the dashboard', () => {
  let env: TestEnv;
  let api: TestApi;
  let browser: Browser;
  let page: Page;
  let base: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    ensureWebBuild();
    env = await TestEnv.create({ BOUNCE_RATE_LIMIT: '0.05', COMPLAINT_RATE_LIMIT: '0.003' });
    api = await TestApi.start(env, { workers: false });
    await api.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = api.app.getHttpServer().address() as AddressInfo;
    base = `http://127.0.0.1:${port}`;
    browser = await launchChromium();
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      locale: 'en-US',
    });
    page = await context.newPage();
    page.setDefaultTimeout(30_000);

    await page.goto(`${base}/dashboard/signup`);
    await page.getByLabel('Organisation').fill('Stale List Co');
    await page.getByLabel('Your name').fill('Sam Sender');
    await page.getByLabel('Work email').fill('sam@stale.test');
    await page.getByLabel('Password').fill('a long and careful passphrase');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    const [account] = await env.sql<{ id: string }>(
      `SELECT id FROM accounts WHERE name = 'Stale List Co'`,
    );

    // As sends would have left them: counters folded, started, paused by the guard or not.
    const sent = async (
      name: string,
      status: 'paused' | 'sent',
      reason: 'bounce_rate' | 'complaint_rate' | null,
      counts: { delivered: number; bounces: number; complaints: number },
    ) => {
      const campaign = await api.make.campaign(account.id, { name });
      await env.sql(
        `UPDATE campaigns SET status = $2, paused_reason = $3::paused_reason,
                started_at = now() - interval '1 hour', recipient_count = $4,
                delivered_count = $4, bounce_count = $5, complaint_count = $6
          WHERE id = $1`,
        [campaign.id, status, reason, counts.delivered, counts.bounces, counts.complaints],
      );
      ids[name] = campaign.id;
    };
    await sent('Spring sale', 'paused', 'bounce_rate', {
      delivered: 400,
      bounces: 30,
      complaints: 0,
    });
    await sent('Winter news', 'paused', 'complaint_rate', {
      delivered: 1000,
      bounces: 10,
      complaints: 5,
    });
    await sent('Held by hand', 'paused', null, { delivered: 800, bounces: 8, complaints: 1 });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
    await env?.dispose();
  });

  const explanation = () => page.getByTestId('guard-explanation');

  it('explains a pause for bounces: the rate, the limit, what to do', async () => {
    await page.goto(`${base}/dashboard/campaigns/${ids['Spring sale']}`);
    await explanation()
      .getByRole('heading', { name: /Herald paused this campaign to protect your sender/ })
      .waitFor();
    const text = await explanation().innerText();
    expect(text).toMatch(/7\.5% of its messages bounced because the address does not exist/);
    expect(text).toMatch(/30 of 400 delivered/);
    expect(text).toMatch(/more than 5% bounce/);
    expect(text).toMatch(/What to do: clean your list first/);
    expect(text).toMatch(/Then press Resume/);
    // The page still offers the way out it describes.
    await page.getByRole('button', { name: 'Resume' }).waitFor();
    await screenshot(page, 'guard-bounce-rate');
  });

  it('explains a pause for complaints in its own words', async () => {
    await page.goto(`${base}/dashboard/campaigns/${ids['Winter news']}`);
    await explanation().waitFor();
    const text = await explanation().innerText();
    expect(text).toMatch(/0\.5% of the people who received it marked it as spam/);
    expect(text).toMatch(/5 of 1,000 delivered/);
    expect(text).toMatch(/more than 0\.3% complain/);
    expect(text).toMatch(/Keep only people who asked for your mail/);
    await screenshot(page, 'guard-complaint-rate');
  });

  it('says nothing of the kind for a campaign a person paused', async () => {
    await page.goto(`${base}/dashboard/campaigns/${ids['Held by hand']}`);
    await page.getByRole('heading', { name: 'Held by hand' }).waitFor();
    await page.getByRole('button', { name: 'Resume' }).waitFor();
    expect(await explanation().count()).toBe(0);
  });

  it("shows each recent campaign's rates against the limits on the overview", async () => {
    await page.goto(`${base}/dashboard/overview`);
    await page
      .getByRole('heading', { name: 'Bounces and complaints of recent campaigns' })
      .waitFor();
    expect(await page.getByTestId('guard-limits').innerText()).toMatch(
      /more than 5% of its delivered messages bounce or more than 0\.3% of recipients/,
    );
    const row = (name: string) => page.getByTestId('campaign-rates').filter({ hasText: name });
    await row('Spring sale').waitFor();
    expect(await row('Spring sale').innerText()).toMatch(/7\.5% · over the limit/);
    expect(await row('Spring sale').innerText()).toMatch(/by Herald/);
    expect(await row('Winter news').innerText()).toMatch(/0\.5% · over the limit/);
    const byHand = await row('Held by hand').innerText();
    expect(byHand).toMatch(/1%/);
    expect(byHand).not.toMatch(/over the limit|by Herald/);
    await screenshot(page, 'guard-overview');
  });
});
