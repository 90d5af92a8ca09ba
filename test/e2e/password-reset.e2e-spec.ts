import { createHmac } from 'node:crypto';
import { RESETS_PER_EMAIL_AND_IP } from '../../src/dashboard/sessions/login-throttle';
import { SmtpSink } from '../support/smtp-sink';
import { TestApi, TestEnv } from '../support/test-env';
import { waitFor } from '../support/wait-for';
import { DashboardAgent, PASSWORD } from './dashboard-agent';

const NEW_PASSWORD = 'a brand new passphrase';

/**
 * Password reset by an emailed link, through a real SMTP sink on loopback: the request says
 * nothing about who has an account, the link works once within the hour, and using it ends
 * every other session of the person.
 */
describe('password reset', () => {
  let sink: SmtpSink;
  let env: TestEnv;
  let api: TestApi;

  beforeAll(async () => {
    sink = await SmtpSink.start();
    env = await TestEnv.create({
      SMTP_URL: sink.url,
      MAIL_FROM: 'Herald <accounts@herald.example>',
      PUBLIC_URL: 'http://herald.example',
    });
    api = await TestApi.start(env, { workers: false });
  });
  afterAll(async () => {
    await api?.close();
    await env?.dispose();
    await sink?.close();
  });

  const mailTo = (email: string) => sink.messages.filter((m) => m.to.includes(email));

  /** Asks for a reset as a signed-out visitor would. */
  const ask = async (email: string) => {
    const visitor = new DashboardAgent(api);
    await visitor.probe();
    return visitor.post('/dashboard/api/password-reset', { email });
  };

  /** The token of the newest reset mail to `email`, once it has arrived. */
  const linkFor = async (email: string, count: number) => {
    const message = await waitFor(() => mailTo(email)[count - 1], {
      message: () => `no reset mail ${count} for ${email}; sink holds ${sink.messages.length}`,
    });
    const match = /http:\/\/herald\.example\/dashboard\/reset-password#([\w-]{43})/.exec(
      message.body,
    );
    expect(match).not.toBeNull();
    return { message, token: match![1] };
  };

  const complete = async (token: string, password = NEW_PASSWORD) => {
    const visitor = new DashboardAgent(api);
    await visitor.probe();
    const response = await visitor.post('/dashboard/api/password-reset/complete', {
      token,
      password,
    });
    if (response.status === 200) visitor.csrf = response.body.csrf_token;
    return { response, visitor };
  };

  it('answers a known and an unknown email alike, and mails only the known one', async () => {
    await new DashboardAgent(api).signUp('Known@Acme.test', 'Acme');
    const unknown = await ask('nobody@acme.test');
    const known = await ask('known@acme.test');
    const malformed = await ask('not an email');
    expect(known.status).toBe(202);
    expect(unknown.status).toBe(202);
    expect(malformed.status).toBe(202);
    expect(unknown.body).toEqual(known.body);
    expect(malformed.body).toEqual(known.body);
    expect(known.body.message).toMatch(/If a Herald account signs in with this email/);

    const { message, token } = await linkFor('known@acme.test', 1);
    expect(message.headers.from).toBe('Herald <accounts@herald.example>');
    expect(message.headers.subject).toBe('Set a new Herald password');
    expect(sink.messages.every((m) => m.to.join() === 'known@acme.test')).toBe(true);

    // Only the token's keyed hash is stored.
    const rows = await env.sql<{ token_hash: string }>('SELECT token_hash FROM password_resets');
    expect(rows).toEqual([
      {
        token_hash: createHmac('sha256', env.config.secret)
          .update('dashboard-password-reset')
          .update('\0')
          .update(token)
          .digest('base64url'),
      },
    ]);
  });

  it('follows the link: new password, other sessions ended, the link spent', async () => {
    const email = 'ada@reset.test';
    await new DashboardAgent(api).signUp(email, 'Reset Ltd');
    // Two other browsers signed in, e.g. the person's laptop and a thief's.
    const laptop = new DashboardAgent(api);
    const thief = new DashboardAgent(api);
    expect((await laptop.signIn(email)).status).toBe(200);
    expect((await thief.signIn(email)).status).toBe(200);
    expect((await thief.get('/dashboard/api/keys')).status).toBe(200);

    expect((await ask(email)).status).toBe(202);
    const { token } = await linkFor(email, 1);

    // Too short: refused, and the link still works afterwards.
    const short = await complete(token, 'short');
    expect(short.response.status).toBe(422);
    expect(short.response.body.error.details).toEqual([
      expect.objectContaining({ field: 'password', code: 'too_short' }),
    ]);

    const { response, visitor } = await complete(token);
    expect(response.status).toBe(200);
    expect(response.body.user).toMatchObject({ email });
    // The resetting browser is signed in; every other session is gone.
    expect((await visitor.get('/dashboard/api/keys')).status).toBe(200);
    expect((await thief.get('/dashboard/api/keys')).status).toBe(401);
    expect((await laptop.get('/dashboard/api/session')).body.user).toBeNull();

    expect((await new DashboardAgent(api).signIn(email, PASSWORD)).status).toBe(401);
    expect((await new DashboardAgent(api).signIn(email, NEW_PASSWORD)).status).toBe(200);

    // Single use.
    const again = await complete(token, 'yet another passphrase');
    expect(again.response.status).toBe(409);
    expect(again.response.body.error.message).toMatch(/already been used/);
    expect((await new DashboardAgent(api).signIn(email, NEW_PASSWORD)).status).toBe(200);

    const audit = await env.sql<{ action: string; metadata: Record<string, unknown> }>(
      `SELECT action, metadata FROM audit_events WHERE action LIKE 'user.password_reset%'
        AND metadata->>'user_id' = (SELECT id::text FROM users WHERE email = $1) ORDER BY id`,
      [email],
    );
    expect(audit.map((a) => a.action)).toEqual([
      'user.password_reset_requested',
      'user.password_reset',
    ]);
    // The sign-up's browser, the laptop and the thief's.
    expect(audit[1].metadata.sessions_ended).toBe(3);
  });

  it('refuses an expired link with a clear error and leaves the password alone', async () => {
    const email = 'late@reset.test';
    await new DashboardAgent(api).signUp(email, 'Late Ltd');
    await ask(email);
    const { token } = await linkFor(email, 1);
    // An hour later, as far as the row is concerned.
    await env.sql(
      `UPDATE password_resets SET expires_at = now() - interval '1 second'
        WHERE user_id = (SELECT id FROM users WHERE email = $1)`,
      [email],
    );
    const { response } = await complete(token);
    expect(response.status).toBe(409);
    expect(response.body.error).toMatchObject({ code: 'conflict', details: [] });
    expect(response.body.error.message).toMatch(/expired .*1 hour/);
    expect((await new DashboardAgent(api).signIn(email, PASSWORD)).status).toBe(200);
  });

  it('keeps only the newest link working, and refuses tokens it never issued', async () => {
    const email = 'twice@reset.test';
    await new DashboardAgent(api).signUp(email, 'Twice Ltd');
    await ask(email);
    const first = await linkFor(email, 1);
    await ask(email);
    const second = await linkFor(email, 2);
    expect(second.token).not.toBe(first.token);
    const stale = await complete(first.token);
    expect(stale.response.status).toBe(404);
    expect(stale.response.body.error.message).toMatch(/not valid/);
    expect((await complete('x'.repeat(43))).response.status).toBe(404);
    expect((await complete('short')).response.status).toBe(404);
    expect((await complete(second.token)).response.status).toBe(200);
  });

  it('throttles requests per email and address alike for known and unknown emails', async () => {
    const known = 'busy@reset.test';
    await new DashboardAgent(api).signUp(known, 'Busy Ltd');
    for (const email of [known, 'ghost@reset.test']) {
      const statuses: number[] = [];
      for (let i = 0; i <= RESETS_PER_EMAIL_AND_IP; i++) statuses.push((await ask(email)).status);
      expect(statuses).toEqual([...Array(RESETS_PER_EMAIL_AND_IP).fill(202), 429]);
    }
    const refused = await ask(known);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect(refused.body.error.code).toBe('rate_limited');
  });
});
