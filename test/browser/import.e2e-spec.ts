import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { TestApi, TestEnv } from '../support/test-env';
import { ensureWebBuild, hasChromium, launchChromium, screenshot } from './browser';

/**
 * The import page in a real browser: a person picks a CSV, checks and changes where its
 * columns go, watches the progress bar, reads the summary and the refused rows, then exports
 * the list from the subscribers page. Screenshots go to var/screenshots/import-*.png.
 */
const describeWithChromium = hasChromium ? describe : describe.skip;
jest.setTimeout(180_000);

const ROWS = 3000;

describeWithChromium('Import page in Chromium', () => {
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
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await page.goto(`${base}/dashboard/signup`);
    await page.getByLabel('Organisation').fill('List Co');
    await page.getByLabel('Your name').fill('Lee List');
    await page.getByLabel('Work email').fill('lee@list.example');
    await page.getByLabel('Password').fill('a long and careful passphrase');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
    await env?.dispose();
  });

  it('maps the columns, shows the progress and the rows it refused', async () => {
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Subscribers' })
      .click();
    await page.getByRole('link', { name: 'Import CSV' }).click();
    await page.getByRole('heading', { name: 'Import subscribers' }).waitFor();

    const lines = ['Email Address,First Name,Town,Plan,Notes'];
    for (let row = 1; row <= ROWS; row++) {
      const email = row % 1000 === 0 ? `broken-${row}` : `reader${row}@list.example`;
      lines.push(`${email},Reader ${row},Oslo,gold,note ${row}`);
    }
    await page.getByLabel('CSV file').setInputFiles({
      name: 'readers.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(lines.join('\n')),
    });

    // The guess: known headers to fields, the rest to custom fields; change two of them.
    const mapping = (header: string) => page.getByLabel(`Imported as, for column ${header}`);
    await mapping('Email Address').waitFor();
    expect(await mapping('Email Address').inputValue()).toBe('email');
    expect(await mapping('First Name').inputValue()).toBe('first_name');
    expect(await mapping('Plan').inputValue()).toBe('custom_fields.Plan');
    await mapping('Town').selectOption('city');
    await mapping('Notes').selectOption({ label: 'Skip this column' });
    await screenshot(page, 'import-01-mapping');
    await page.getByRole('button', { name: 'Import' }).click();

    const progress = page.getByRole('progressbar', { name: 'Import progress' });
    await progress.waitFor();
    await page.getByRole('heading', { name: 'Done' }).waitFor({ timeout: 90_000 });
    expect(await progress.getAttribute('aria-valuenow')).toBe('100');
    const summary = page.getByRole('definition');
    expect(await summary.allTextContents()).toEqual(['2,997', '0', '0', '0', '3']);
    const errors = page.getByRole('table', { name: 'Row errors' });
    expect(await errors.getByRole('row').count()).toBe(1 + 3);
    await errors.getByRole('cell', { name: '1000', exact: true }).waitFor();
    const download = page.getByRole('link', { name: 'Download all row errors (CSV)' });
    const response = await page.request.get(
      new URL((await download.getAttribute('href'))!, base).toString(),
    );
    expect(response.headers()['content-type']).toMatch(/^text\/csv/);
    expect((await response.text()).trim().split('\n')).toHaveLength(1 + 3);
    await screenshot(page, 'import-02-summary');

    const [row] = await env.sql(
      `SELECT city, custom_fields FROM subscribers WHERE email = 'reader1@list.example'`,
    );
    expect(row).toEqual({ city: 'Oslo', custom_fields: { Plan: 'gold' } });
  });

  it('exports the subscribers as CSV from the subscribers page', async () => {
    await page.getByRole('link', { name: 'See subscribers' }).click();
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const link = page.getByRole('link', { name: /Download CSV/ });
    await link.waitFor({ timeout: 60_000 });
    expect(await link.textContent()).toBe('Download CSV (2,997)');
    const response = await page.request.get(
      new URL((await link.getAttribute('href'))!, base).toString(),
    );
    const text = await response.text();
    expect(text.split('\n')[0]).toContain('email,first_name');
    expect(text).toContain('reader2999@list.example');
    await screenshot(page, 'import-03-export');
  });
});
