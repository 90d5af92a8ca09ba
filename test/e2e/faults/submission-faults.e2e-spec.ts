import nodemailer, { type SendMailOptions } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import { FaultRig, Tenant } from '../../support/fault-rig';
import { freePort } from '../../support/processes';
import { ThrowawayPostgres } from '../../support/throwaway-postgres';
import { ThrowawayRedis } from '../../support/throwaway-redis';
import { waitFor } from '../../support/wait-for';

interface SmtpError {
  responseCode?: number;
  response?: string;
  message: string;
}

/**
 * SMTP submission while PostgreSQL is stopped: every answer is a 451 (the application's mail
 * server keeps the message and retries), never a 5xx that would make it drop the mail, and
 * once PostgreSQL is back the retried message is taken and delivered once to each envelope
 * recipient, with one message log entry each. The API process takes submissions, a worker
 * sends them; PostgreSQL is a throwaway server of this file's own, stopped hard.
 */
describe('SMTP submission while PostgreSQL is away', () => {
  let postgres: ThrowawayPostgres;
  let rig: FaultRig;
  let port: number;
  let tenant: Tenant;

  const keyOf = (t: Tenant) => t.auth.replace(/^Bearer /, '');
  /** One connection per message, as WordPress's or Django's mailer makes it. */
  const submit = (key: string, message: SendMailOptions) => {
    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port,
      secure: false,
      requireTLS: true,
      tls: { rejectUnauthorized: false },
      auth: { user: 'app', pass: key },
      connectionTimeout: 30_000,
      greetingTimeout: 30_000,
      socketTimeout: 60_000,
    } as SMTPTransport.Options);
    return transport.sendMail(message).finally(() => transport.close());
  };
  const refusal = (sending: Promise<unknown>): Promise<SmtpError> =>
    sending.then(
      () => {
        throw new Error('accepted while PostgreSQL was stopped');
      },
      (error: SmtpError) => error,
    );
  const receipt = (to: string, bcc: string): SendMailOptions => ({
    from: 'Shop <orders@shop.test>',
    to,
    bcc,
    subject: 'Your order',
    text: 'Thanks for your order.',
    messageId: `<order-${to}>`,
  });

  beforeAll(async () => {
    postgres = await ThrowawayPostgres.start();
    port = await freePort();
    rig = await FaultRig.start({
      postgres,
      env: { SUBMISSION_SMTP_PORT: String(port), SUBMISSION_SMTP_HOST: '127.0.0.1' },
    });
    rig.startWorker();
    tenant = await rig.tenant('Shop');
  }, 180_000);
  afterAll(async () => {
    await rig?.dispose();
    await postgres?.dispose();
  });

  it('answers 451 at every step while it is stopped; the retry once it is back lands once', async () => {
    // Up: a message goes through, and the key is now in the API's cache.
    const before = await submit(keyOf(tenant), receipt('first@buyer.test', 'first-copy@shop.test'));
    expect(before.response).toMatch(/^250 .*queued as /);
    // A key the API has never seen must be read from PostgreSQL at AUTH.
    const fresh = await rig.tenant('Newcomer');

    await postgres.crash();
    const message = receipt('second@buyer.test', 'second-copy@shop.test');
    const started = Date.now();
    const atData = await refusal(submit(keyOf(tenant), message));
    const atAuth = await refusal(submit(keyOf(fresh), message));
    const answeredIn = Date.now() - started;
    for (const error of [atData, atAuth]) {
      expect({ code: error.responseCode, text: error.response }).toEqual({
        code: 451,
        text: expect.stringMatching(/retry later/) as string,
      });
    }
    // Each refusal came in bounded time, not when some client timeout gave up.
    expect(answeredIn).toBeLessThan(60_000);

    await postgres.resume();
    // The application's mail server retries until it is taken; until then only 451s.
    const codes: (number | undefined)[] = [];
    const taken = await waitFor(
      async () => {
        try {
          return await submit(keyOf(tenant), message);
        } catch (error) {
          codes.push((error as SmtpError).responseCode);
          return undefined;
        }
      },
      { timeoutMs: 60_000, intervalMs: 1_000, message: () => `retries: ${codes.join(',')}` },
    );
    expect(codes.every((code) => code === 451)).toBe(true);
    expect(taken.response).toMatch(/^250 .*queued as [^,]+,[^,]+$/);

    const recipients = [
      'first@buyer.test',
      'first-copy@shop.test',
      'second@buyer.test',
      'second-copy@shop.test',
    ];
    // Every message reads sent: nothing is left that could still go out.
    await waitFor(
      async () => {
        const rows = await rig.env.sql<{ status: string }>(
          `SELECT status FROM transactional_messages WHERE account_id = $1`,
          [tenant.accountId],
        );
        return rows.length === recipients.length && rows.every((row) => row.status === 'sent');
      },
      { timeoutMs: 90_000, intervalMs: 250, message: () => rig.logs() },
    );
    const logged = await rig.env.sql<{ n: number }>(
      `SELECT count(*)::int AS n FROM transactional_messages WHERE account_id = $1`,
      [tenant.accountId],
    );
    expect(logged[0].n).toBe(recipients.length);
    expect(recipients.map((to) => rig.sink.countOf(to))).toEqual(recipients.map(() => 1));
    expect(rig.crashed()).toEqual([]);
  }, 400_000);
});

/**
 * The same with Redis killed (the key's send rate is counted there): 451, and once Redis is
 * back (empty, as after a crash) the retried message lands once.
 */
describe('SMTP submission while Redis is away', () => {
  let redis: ThrowawayRedis;
  let rig: FaultRig;
  let port: number;

  beforeAll(async () => {
    redis = await ThrowawayRedis.start();
    port = await freePort();
    rig = await FaultRig.start({
      redis,
      env: { SUBMISSION_SMTP_PORT: String(port), SUBMISSION_SMTP_HOST: '127.0.0.1' },
    });
    rig.startWorker();
  }, 180_000);
  afterAll(async () => {
    // Up again whatever the test left, so the rig's clean-up can delete its keys.
    await redis?.restart().catch(() => undefined);
    await rig?.dispose();
    await redis?.dispose();
  }, 120_000);

  it('answers 451 while it is down; the retry once it is back lands once', async () => {
    const tenant = await rig.tenant('Shop');
    const key = tenant.auth.replace(/^Bearer /, '');
    const submit = (message: SendMailOptions) => {
      const transport = nodemailer.createTransport({
        host: '127.0.0.1',
        port,
        secure: false,
        requireTLS: true,
        tls: { rejectUnauthorized: false },
        auth: { user: 'app', pass: key },
        socketTimeout: 60_000,
      } as SMTPTransport.Options);
      return transport.sendMail(message).finally(() => transport.close());
    };
    const message: SendMailOptions = {
      from: 'Shop <orders@shop.test>',
      to: 'buyer@redis.test',
      subject: 'Your order',
      text: 'Thanks for your order.',
    };
    await redis.crash();
    const refused = await submit(message).then(
      () => undefined,
      (error: SmtpError) => error,
    );
    expect(refused?.responseCode).toBe(451);
    await redis.restart();
    const taken = await waitFor(() => submit(message).catch(() => undefined), {
      timeoutMs: 60_000,
      intervalMs: 1_000,
    });
    expect(taken.response).toMatch(/^250 .*queued as /);
    await waitFor(
      async () => {
        const rows = await rig.env.sql<{ status: string }>(
          `SELECT status FROM transactional_messages WHERE account_id = $1`,
          [tenant.accountId],
        );
        return rows.length === 1 && rows[0].status === 'sent';
      },
      { timeoutMs: 90_000, intervalMs: 250, message: () => rig.logs() },
    );
    expect(rig.sink.countOf('buyer@redis.test')).toBe(1);
    expect(rig.crashed()).toEqual([]);
  }, 400_000);
});
