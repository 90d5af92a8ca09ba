import nodemailer, { type SendMailOptions, type Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import request from 'supertest';
import { newId } from '../../src/platform/crypto/ids';
import { SubmissionSmtpServer } from '../../src/submission/submission-smtp.server';
import { SmtpSink } from '../support/smtp-sink';
import { TestApi, TestEnv } from '../support/test-env';
import { waitFor } from '../support/wait-for';

const MAX_BYTES = 256 * 1024;

type Options = SMTPTransport.Options;

/**
 * SMTP submission with nodemailer as the application: every reply it promises, the
 * envelope's recipients (Bcc), idempotency, STARTTLS and the limits, against real
 * PostgreSQL, Redis and an SMTP sink on loopback.
 */
describe('SMTP submission', () => {
  let sink: SmtpSink;
  let env: TestEnv;
  let api: TestApi;
  let port: number;
  let key: string;
  let auth: string;
  let seq = 0;
  const transports: Transporter[] = [];

  const recipient = (name = 'user') => `${name}-${++seq}@example.com`;
  const at = (to: string) => sink.messages.filter((m) => m.to.includes(to.toLowerCase()));

  /** An application's transport: STARTTLS required (the certificate is self-signed). */
  const client = (options: Partial<Options> = {}) => {
    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port,
      secure: false,
      requireTLS: true,
      tls: { rejectUnauthorized: false },
      auth: { user: 'wordpress', pass: key },
      ...options,
    } as Options);
    transports.push(transport);
    return transport;
  };
  const mail = (to: string | string[], extra: SendMailOptions = {}) => ({
    from: 'Acme <hello@acme.test>',
    to,
    subject: 'Your receipt',
    text: 'Thanks!',
    html: '<p>Thanks!</p>',
    ...extra,
  });
  const queuedIds = (response: string) => /queued as (\S+)/.exec(response)![1].split(',');
  const refusal = (sending: Promise<unknown>) =>
    sending.then(
      () => {
        throw new Error('accepted');
      },
      (error: { responseCode?: number; response?: string }) => error,
    );

  beforeAll(async () => {
    sink = await SmtpSink.start({ keepBodies: true });
    env = await TestEnv.create({
      SMTP_URL: sink.url,
      SUBMISSION_SMTP_PORT: '0',
      SUBMISSION_SMTP_HOST: '127.0.0.1',
      SUBMISSION_MAX_BYTES: String(MAX_BYTES),
      RATE_LIMIT_SEND: '1000',
    });
    api = await TestApi.start(env);
    port = api.app.get(SubmissionSmtpServer).port!;
    const tenant = await api.tenant();
    ({ key, auth } = tenant);
    await env.sql(
      `INSERT INTO sender_domains (id, account_id, name, status, verified_at)
       VALUES ($1, $2, 'acme.test', 'verified', now())`,
      [newId(), tenant.accountId],
    );
  });
  afterAll(async () => {
    for (const transport of transports) transport.close();
    await api?.close();
    await env?.dispose();
    await sink?.close();
  });

  it('takes a message over STARTTLS with an API key: 250 queued as the message log id', async () => {
    const to = recipient();
    const transport = client();
    const info = await transport.sendMail(mail(to, { messageId: '<order-17@shop.acme.test>' }));
    expect(info.response).toMatch(/^250 .*queued as [0-9a-f-]{36}$/);
    const [id] = queuedIds(info.response);
    await sink.waitFor(1);
    const [received] = at(to);
    // As the client wrote it: its Message-ID, its parts.
    expect(received.headers['message-id']).toBe('<order-17@shop.acme.test>');
    expect(received.body).toContain('<p>Thanks!</p>');
    const message = await waitFor(async () => {
      const response = await request(api.server)
        .get(`/v1/transactional/${id}`)
        .set('Authorization', auth);
      const body = response.body as { status: string };
      return body.status === 'sent' ? body : undefined;
    });
    expect(message).toMatchObject({ id, to, status: 'sent' });
  });

  it('makes one message per envelope recipient and removes Bcc', async () => {
    const to = recipient('to');
    const hidden = recipient('bcc');
    const info = await client().sendMail(mail(to, { bcc: hidden }));
    const ids = queuedIds(info.response);
    expect(ids).toHaveLength(2);
    await waitFor(() => at(to).length === 1 && at(hidden).length === 1);
    for (const received of [...at(to), ...at(hidden)]) {
      expect(received.to).toHaveLength(1);
      expect(received.headers.bcc).toBeUndefined();
      expect(received.raw).not.toContain(hidden.split('@')[0] + '@example.com>');
    }
  });

  it('gives a message without a Message-ID one of its own', async () => {
    const to = recipient();
    const raw = `From: hello@acme.test\r\nTo: ${to}\r\nSubject: plain\r\n\r\nhello\r\n`;
    const info = await client().sendMail({
      envelope: { from: 'hello@acme.test', to: [to] },
      raw,
    });
    const [id] = queuedIds(info.response);
    await waitFor(() => at(to).length === 1);
    expect(at(to)[0].headers['message-id']).toBe(`<${id}@acme.test>`);
  });

  it('replays a repeated Idempotency-Key with the first ids, and refuses another message with 550', async () => {
    const to = recipient();
    const idempotent = mail(to, { headers: { 'Idempotency-Key': `order-${seq}` } });
    const transport = client();
    const first = await transport.sendMail(idempotent);
    const again = await transport.sendMail(idempotent);
    expect(queuedIds(again.response)).toEqual(queuedIds(first.response));
    const other = await refusal(
      transport.sendMail({ ...idempotent, text: 'Another text', html: undefined }),
    );
    expect(other.responseCode).toBe(550);
    expect(other.response).toMatch(/Idempotency-Key was already used/);
    await waitFor(() => at(to).length >= 1);
    // The key is Herald's, not the recipient's.
    expect(at(to)[0].headers['idempotency-key']).toBeUndefined();
    expect(at(to)).toHaveLength(1);
  });

  it('refuses AUTH before STARTTLS with 538', async () => {
    const error = await refusal(
      client({ requireTLS: false, ignoreTLS: true }).sendMail(mail(recipient())),
    );
    expect(error.responseCode).toBe(538);
    expect(error.response).toMatch(/STARTTLS/);
  });

  it('refuses MAIL before AUTH with 530', async () => {
    const error = await refusal(client({ auth: undefined }).sendMail(mail(recipient())));
    expect(error.responseCode).toBe(530);
    expect(error.response).toMatch(/API key as the password/);
  });

  it('refuses a key that is not a live key, or lacks transactional:send, with 535', async () => {
    const bad = await refusal(
      client({ auth: { user: 'x', pass: 'sk_live_nope' } }).sendMail(mail(recipient())),
    );
    expect(bad.responseCode).toBe(535);
    expect(bad.response).toMatch(/active Herald API key/);
    const { key: readOnly } = await api.key((await api.tenant('Other')).accountId, ['stats:read']);
    const scoped = await refusal(
      client({ auth: { user: 'x', pass: readOnly } }).sendMail(mail(recipient())),
    );
    expect(scoped.responseCode).toBe(535);
    expect(scoped.response).toMatch(/transactional:send/);
  });

  it('refuses a suppressed or erased recipient with 550 at RCPT while the others go on', async () => {
    const good = recipient('good');
    const suppressed = recipient('suppressed');
    const erased = recipient('erased');
    await request(api.server)
      .post('/v1/suppressions')
      .set('Authorization', auth)
      .send({ email: suppressed })
      .expect(201);
    await request(api.server)
      .post('/v1/erasures')
      .set('Authorization', auth)
      .send({ email: erased })
      .expect(200);
    const info = await client().sendMail(mail([good, suppressed, erased]));
    expect(info.accepted).toEqual([good]);
    expect(info.rejected.sort()).toEqual([erased, suppressed].sort());
    const errors = info.rejectedErrors as unknown as { responseCode: number; response: string }[];
    expect(errors.map((e) => e.responseCode)).toEqual([550, 550]);
    expect(errors.map((e) => e.response).join('\n')).toMatch(/suppression list/);
    expect(errors.map((e) => e.response).join('\n')).toMatch(/erased/);
    expect(queuedIds(info.response)).toHaveLength(1);
    await waitFor(() => at(good).length === 1);
    expect(at(suppressed)).toHaveLength(0);
  });

  it('answers 452 past 50 recipients, and takes the first 50', async () => {
    const many = Array.from({ length: 52 }, () => recipient('many'));
    const info = await client().sendMail(mail(many));
    expect(info.accepted).toHaveLength(50);
    const errors = info.rejectedErrors as unknown as { responseCode: number; response: string }[];
    expect(errors.map((e) => e.responseCode)).toEqual([452, 452]);
    expect(errors[0].response).toMatch(/at most 50/);
    expect(queuedIds(info.response)).toHaveLength(50);
  });

  it('refuses a From on an unverified domain with 550 after DATA', async () => {
    const error = await refusal(
      client().sendMail(mail(recipient(), { from: 'someone@elsewhere.test' })),
    );
    expect(error.responseCode).toBe(550);
    expect(error.response).toMatch(/elsewhere\.test is not a verified sender domain/);
  });

  it('refuses a message over SUBMISSION_MAX_BYTES with 552, and takes a large one under it', async () => {
    const to = recipient();
    const large = 'x'.repeat(76) + '\r\n';
    const under = large.repeat(Math.floor((MAX_BYTES * 0.8) / 78));
    const info = await client().sendMail(mail(to, { text: under, html: undefined }));
    expect(info.response).toMatch(/^250/);
    await waitFor(() => at(to).length === 1);
    expect(at(to)[0].raw.length).toBeGreaterThan(MAX_BYTES * 0.8);
    const error = await refusal(
      client().sendMail(
        mail(recipient(), { text: large.repeat(Math.ceil(MAX_BYTES / 78) + 10), html: undefined }),
      ),
    );
    expect(error.responseCode).toBe(552);
    expect(error.response).toMatch(/SUBMISSION_MAX_BYTES/);
  });

  it("answers 451 when the key's send rate is spent, so the client retries", async () => {
    const tenant = await api.tenant('Throttled');
    await env.sql(`UPDATE accounts SET send_rate_limit = 1 WHERE id = $1`, [tenant.accountId]);
    await env.sql(
      `INSERT INTO sender_domains (id, account_id, name, status, verified_at)
       VALUES ($1, $2, 'acme.test', 'verified', now())`,
      [newId(), tenant.accountId],
    );
    const transport = client({ auth: { user: 'x', pass: tenant.key } });
    const error = await refusal(
      (async () => {
        for (let i = 0; i < 5; i++) await transport.sendMail(mail(recipient()));
      })(),
    );
    expect(error.responseCode).toBe(451);
    expect(error.response).toMatch(/retry in \d+ seconds/);
  });

  it('closes with 421 once an address failed 10 logins in 10 minutes, and refuses it meanwhile', async () => {
    const wrong = { user: 'x', pass: 'sk_live_' + 'A'.repeat(43) };
    // The 535 test above failed twice from this address already: at most 10 tries in all.
    const codes: number[] = [];
    while (codes.length < 10 && codes[codes.length - 1] !== 421) {
      codes.push(
        (await refusal(client({ auth: wrong }).sendMail(mail(recipient())))).responseCode!,
      );
    }
    expect(codes[codes.length - 1]).toBe(421);
    expect(codes.slice(0, -1).every((code) => code === 535)).toBe(true);
    // Even the right key waits now: the address is refused as it connects.
    const blocked = await refusal(client().sendMail(mail(recipient())));
    expect(blocked.responseCode).toBe(421);
    expect(blocked.response).toMatch(/failed logins/);
  });
});
