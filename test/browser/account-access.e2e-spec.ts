import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { SmtpSink } from '../support/smtp-sink';
import { TestApi, TestEnv } from '../support/test-env';
import { waitFor } from '../support/wait-for';
import { ensureWebBuild, hasChromium, launchChromium, screenshot } from './browser';

/**
 * The People page, joining by an invitation link and a password reset from the sign-in page,
 * in a real browser; mail goes to an SMTP sink on loopback. Screenshots in var/screenshots/.
 */
const describeWithChromium = hasChromium ? describe : describe.skip;
jest.setTimeout(180_000);

const OWNER = 'owner@access.test';
const MEMBER = 'member@access.test';
const PASSWORD = 'a long and careful passphrase';

describeWithChromium('account access in Chromium', () => {
  let sink: SmtpSink;
  let env: TestEnv;
  let api: TestApi;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    ensureWebBuild();
    sink = await SmtpSink.start();
    env = await TestEnv.create({ SMTP_URL: sink.url });
    api = await TestApi.start(env, { workers: false });
    await api.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(api.app.getHttpServer().address() as AddressInfo).port}`;
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
    await env?.dispose();
    await sink?.close();
  });

  const newPage = async (): Promise<Page> => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    return page;
  };
  /** Links in mail name PUBLIC_URL; the test server listens on another port. */
  /** Both people's browsers, from the first test on. */
  let owner: Page;
  let member: Page;
  const local = (url: string) => `${base}${new URL(url).pathname}${new URL(url).hash}`;

  it('an owner invites, the invitee joins from the link, then resets a forgotten password', async () => {
    owner = await newPage();
    await owner.goto(`${base}/dashboard/signup`);
    await owner.getByLabel('Organisation').fill('Access Ltd');
    await owner.getByLabel('Work email').fill(OWNER);
    await owner.getByLabel('Password').fill(PASSWORD);
    await owner.getByRole('button', { name: 'Create account' }).click();
    await owner.getByRole('heading', { name: 'API keys' }).waitFor();

    await owner
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'People' })
      .click();
    await owner.getByRole('heading', { name: 'People' }).waitFor();
    await owner.getByRole('button', { name: 'Invite someone' }).click();
    await owner.getByLabel('Their email').fill(MEMBER);
    await owner.getByRole('button', { name: 'Create invitation' }).click();
    const link = await owner.getByLabel('Invitation link (shown only now)').inputValue();
    expect(link).toMatch(/\/dashboard\/join#[\w-]{43}$/);
    await owner.getByText(`We emailed this link to ${MEMBER}.`).waitFor();
    await screenshot(owner, 'access-01-invitation-created', false);
    await owner.getByRole('button', { name: 'Done' }).click();
    await owner.getByRole('cell', { name: MEMBER, exact: true }).waitFor();
    await screenshot(owner, 'access-02-people');

    const mail = await waitFor(() => sink.messages.find((m) => m.to.includes(MEMBER)));
    expect(mail.body).toContain(link);

    member = await newPage();
    await member.goto(local(link));
    await member.getByRole('heading', { name: 'Join Access Ltd' }).waitFor();
    // The token leaves the address bar once read.
    expect(member.url()).toBe(`${base}/dashboard/join`);
    await member.getByLabel('Your name').fill('Mia Member');
    await member.getByLabel('Password').fill('short');
    await member.getByRole('button', { name: 'Join Access Ltd' }).click();
    await member.getByText('Use at least 12 characters.').waitFor();
    await screenshot(member, 'access-03-join');
    await member.getByLabel('Password').fill(PASSWORD);
    await member.getByRole('button', { name: 'Join Access Ltd' }).click();
    await member.getByRole('heading', { name: 'Campaigns' }).waitFor();
    await member.getByRole('button', { name: 'Sign out' }).click();

    await member.getByRole('heading', { name: 'Sign in' }).waitFor();
    await member.getByRole('link', { name: 'Forgot your password?' }).click();
    await member.getByLabel('Email').fill(MEMBER);
    await member.getByRole('button', { name: 'Send the link' }).click();
    await member.getByText(/a link to set a new password is on its way/).waitFor();
    await screenshot(member, 'access-04-forgot-password');

    const reset = await waitFor(() =>
      sink.messages.find((m) => m.to.includes(MEMBER) && /reset-password#/.test(m.body)),
    );
    const resetLink = /(http\S+\/dashboard\/reset-password#[\w-]{43})/.exec(reset.body)![1];
    await member.goto(local(resetLink));
    await member.getByRole('heading', { name: 'Set a new password' }).waitFor();
    await member.getByLabel('New password').fill('an even better passphrase');
    await screenshot(member, 'access-05-set-new-password');
    await member.getByRole('button', { name: 'Set new password' }).click();
    await member.getByRole('heading', { name: 'Campaigns' }).waitFor();

    // The same link again: spent, and the page says so.
    await member.goto(local(resetLink));
    await member.getByLabel('New password').fill('a third passphrase here');
    await member.getByRole('button', { name: 'Set new password' }).click();
    await member.getByText(/already been used/).waitFor();
  });

  it('an owner promotes the member to admin, then removes them, which signs them out at once', async () => {
    const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });
    // A member has no API keys to manage.
    await member.goto(`${base}/dashboard/campaigns`);
    await member.getByRole('heading', { name: 'Campaigns' }).waitFor();
    expect(await nav(member).getByRole('link', { name: 'API keys' }).count()).toBe(0);

    await owner.goto(`${base}/dashboard/people`);
    await owner.getByLabel(`Role of ${MEMBER}`).selectOption('admin');
    await waitFor(
      async () => (await owner.getByLabel(`Role of ${MEMBER}`).inputValue()) === 'admin',
    );
    await member.reload();
    await nav(member).getByRole('link', { name: 'API keys' }).click();
    await member.getByRole('heading', { name: 'API keys' }).waitFor();
    await screenshot(owner, 'access-06-roles');

    // The last owner cannot step down: the page says why.
    await owner.getByLabel(`Role of ${OWNER}`).selectOption('member');
    await owner.getByText(/last owner/).waitFor();

    await owner.getByRole('button', { name: `Remove ${MEMBER}` }).click();
    await owner.getByRole('button', { name: 'Remove', exact: true }).click();
    await owner.getByLabel(`Role of ${MEMBER}`).waitFor({ state: 'detached' });
    await screenshot(owner, 'access-07-removed');
    // Their very next request finds no session.
    await nav(member).getByRole('link', { name: 'Subscribers' }).click();
    await member.getByRole('heading', { name: 'Sign in' }).waitFor();
  });
});
