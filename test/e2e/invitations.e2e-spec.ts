import { parseAccountId } from '../../src/platform/database/account-id';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { UsersService } from '../../src/dashboard/people/users.service';
import { SmtpSink } from '../support/smtp-sink';
import { TestApi, TestEnv } from '../support/test-env';
import { waitFor } from '../support/wait-for';
import { DashboardAgent, PASSWORD } from './dashboard-agent';

const MEMBER_PASSWORD = 'a member passphrase';

/**
 * Joining an account by an invitation link from its owner, on an installation where nobody
 * may sign up: the owner comes from the operator CLI, everyone else through a link.
 */
describe('invitations (SIGNUP=closed)', () => {
  let sink: SmtpSink;
  let env: TestEnv;
  let api: TestApi;
  let owner: DashboardAgent;
  let accountId: string;

  beforeAll(async () => {
    sink = await SmtpSink.start();
    env = await TestEnv.create({
      SIGNUP: 'closed',
      SMTP_URL: sink.url,
      MAIL_FROM: 'Herald <accounts@herald.example>',
      PUBLIC_URL: 'http://herald.example',
    });
    api = await TestApi.start(env, { workers: false });
    accountId = await api.account('Acme');
    await api.app
      .get(UsersService)
      .createForAccount(parseAccountId(accountId), 'owner@acme.test', PASSWORD);
    owner = new DashboardAgent(api);
    expect((await owner.signIn('owner@acme.test')).status).toBe(200);
  });
  afterAll(async () => {
    await api?.close();
    await env?.dispose();
    await sink?.close();
  });

  const invite = async (email: string, by = owner) => {
    const response = await by.post('/dashboard/api/invitations', { email });
    return response;
  };
  const tokenOf = (url: string) => /\/dashboard\/join#([\w-]{43})$/.exec(url)![1];

  /** A signed-out browser that opened the link. */
  const invitee = async () => {
    const agent = new DashboardAgent(api);
    await agent.probe();
    return agent;
  };
  const accept = async (token: string, name = 'Grace') => {
    const agent = await invitee();
    const response = await agent.post('/dashboard/api/invitations/accept', {
      token,
      name,
      password: MEMBER_PASSWORD,
    });
    if (response.status === 201) agent.csrf = response.body.csrf_token;
    return { response, agent };
  };

  it('joins the owner’s account through the link, emailed and shown once', async () => {
    const created = await invite('Grace@Example.test');
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      email: 'Grace@Example.test',
      role: 'member',
      status: 'pending',
      emailed: true,
      url: expect.stringMatching(/^http:\/\/herald\.example\/dashboard\/join#[\w-]{43}$/),
    });
    const expiresIn = Date.parse(created.body.expires_at) - Date.parse(created.body.created_at);
    expect(expiresIn).toBe(7 * 24 * 3600_000);
    const token = tokenOf(created.body.url);

    // The invitee's mail carries the same link; the database only its keyed hash.
    const mail = await waitFor(() =>
      sink.messages.find((m) => m.to.includes('grace@example.test')),
    );
    expect(mail.headers.subject).toBe('Join Acme on Herald');
    expect(mail.body).toContain(created.body.url);
    const stored = await env.sql<{ token_hash: string }>('SELECT token_hash FROM invitations');
    expect(JSON.stringify(stored)).not.toContain(token);
    const listed = await owner.get('/dashboard/api/invitations');
    expect(listed.body.data).toEqual([expect.not.objectContaining({ url: expect.anything() })]);

    // Sign-up stays closed for the invitee; the link is their way in.
    const visitor = await invitee();
    const signUp = await visitor.post('/dashboard/api/signup', {
      account_name: 'Mine',
      email: 'grace@example.test',
      password: MEMBER_PASSWORD,
    });
    expect(signUp.status).toBe(403);

    const inspected = await visitor.post('/dashboard/api/invitations/inspect', { token });
    expect(inspected.status).toBe(200);
    expect(inspected.body).toEqual({
      email: 'Grace@Example.test',
      account_name: 'Acme',
      expires_at: created.body.expires_at,
    });

    const { response, agent } = await accept(token);
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      user: { email: 'Grace@Example.test', name: 'Grace', role: 'member' },
      account: { id: accountId, name: 'Acme' },
    });
    // A member of the same account: sees its people (not its keys), signs in with the password.
    expect((await agent.get('/dashboard/api/keys')).status).toBe(403);
    const people = (await agent.get('/dashboard/api/people')).body as {
      data: { email: string; role: string }[];
    };
    expect(people.data.map((p) => [p.email, p.role])).toEqual([
      ['owner@acme.test', 'owner'],
      ['Grace@Example.test', 'member'],
    ]);
    expect(
      (await new DashboardAgent(api).signIn('grace@example.test', MEMBER_PASSWORD)).status,
    ).toBe(200);

    // Single use.
    const again = await accept(token, 'Mallory');
    expect(again.response.status).toBe(409);
    expect(again.response.body.error.message).toMatch(/already been used/);
    expect((await owner.get('/dashboard/api/invitations')).body.data[0].status).toBe('accepted');

    // Members cannot invite.
    const byMember = await invite('friend@example.test', agent);
    expect(byMember.status).toBe(403);
    expect(byMember.body.error.message).toMatch(/Only an owner or admin/);

    const audit = await env.sql<{ action: string }>(
      `SELECT action FROM audit_events WHERE action LIKE 'invitation.%' ORDER BY id`,
    );
    expect(audit.map((a) => a.action)).toEqual(['invitation.created', 'invitation.accepted']);
  });

  it('refuses a withdrawn invitation, and a member already in the account', async () => {
    const created = await invite('withdrawn@example.test');
    const revoked = await owner.post(`/dashboard/api/invitations/${created.body.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.status).toBe('revoked');
    const { response } = await accept(tokenOf(created.body.url));
    expect(response.status).toBe(409);
    expect(response.body.error.message).toMatch(/withdrawn/);

    const member = await invite('owner@acme.test');
    expect(member.status).toBe(422);
    expect(member.body.error.details).toEqual([
      expect.objectContaining({ field: 'email', code: 'already_exists' }),
    ]);
    expect((await owner.post('/dashboard/api/invitations/not-an-id/revoke')).status).toBe(404);
  });

  it('refuses an expired invitation with a clear error, and unknown tokens', async () => {
    const created = await invite('late@example.test');
    await env.sql(`UPDATE invitations SET expires_at = now() - interval '1 second' WHERE id = $1`, [
      created.body.id,
    ]);
    const token = tokenOf(created.body.url);
    const visitor = await invitee();
    const inspected = await visitor.post('/dashboard/api/invitations/inspect', { token });
    expect(inspected.status).toBe(409);
    const { response } = await accept(token);
    expect(response.status).toBe(409);
    expect(response.body.error).toMatchObject({ code: 'conflict', details: [] });
    expect(response.body.error.message).toMatch(/expired .*7 days/);
    expect((await owner.get('/dashboard/api/invitations')).body.data[0]).toMatchObject({
      id: created.body.id,
      status: 'expired',
    });
    const users = await env.sql(`SELECT 1 FROM users WHERE email_normalized = 'late@example.test'`);
    expect(users).toHaveLength(0);

    const unknown = await accept('A'.repeat(43));
    expect(unknown.response.status).toBe(404);
    expect(unknown.response.body.error.message).toMatch(/not valid/);
  });

  it('lets exactly one of two people opening the same link at once join', async () => {
    const created = await invite('race@example.test');
    const token = tokenOf(created.body.url);
    const [a, b] = await Promise.all([accept(token, 'A'), accept(token, 'B')]);
    const statuses = [a.response.status, b.response.status].sort();
    expect(statuses[0]).toBe(201);
    expect([409, 422]).toContain(statuses[1]);
    const users = await env.sql(`SELECT 1 FROM users WHERE email_normalized = 'race@example.test'`);
    expect(users).toHaveLength(1);
  });

  it('answers within its wait when the relay hangs, saying the link was not emailed', async () => {
    sink.holdAfter = sink.messages.length;
    try {
      const started = Date.now();
      const created = await invite('slow@example.test');
      expect(created.status).toBe(201);
      expect(created.body.emailed).toBe(false);
      expect(Date.now() - started).toBeLessThan(20_000);
      expect((await accept(tokenOf(created.body.url))).response.status).toBe(201);
    } finally {
      sink.release();
    }
  }, 60_000);

  it('replaces a pending invitation to the same email: only the newest link works', async () => {
    const first = await invite('again@example.test');
    const second = await invite('again@example.test');
    expect((await accept(tokenOf(first.body.url))).response.status).toBe(409);
    expect((await accept(tokenOf(second.body.url))).response.status).toBe(201);
  });
});

describe('invitations without a mail relay', () => {
  it('shows the link to the owner and emails nothing, not even to the outbox', async () => {
    const env = await TestEnv.create({ SIGNUP: 'closed' });
    const api = await TestApi.start(env, { workers: false });
    try {
      const accountId = await api.account('Solo');
      await api.app
        .get(UsersService)
        .createForAccount(parseAccountId(accountId), 'solo@acme.test', PASSWORD);
      const owner = new DashboardAgent(api);
      expect((await owner.signIn('solo@acme.test')).status).toBe(200);
      const created = await owner.post('/dashboard/api/invitations', { email: 'x@acme.test' });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ emailed: false, url: expect.stringContaining('#') });
      expect(existsSync(join(env.config.outboxDir, 'dashboard-mail'))).toBe(false);
    } finally {
      await api.close();
      await env.dispose();
      rmSync(env.config.outboxDir, { recursive: true, force: true });
    }
  });
});
