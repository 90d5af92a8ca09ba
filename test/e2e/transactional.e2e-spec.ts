import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from 'pg';
import request, { Response } from 'supertest';
import { ErasureGuard } from '../../src/erasure/erasure-guard';
import { newId } from '../../src/platform/crypto/ids';
import { QUEUES } from '../../src/platform/queue/queue.module';
import { AccountId } from '../../src/platform/database/account-id';
import { TransactionalMessagesRepository } from '../../src/transactional/transactional-messages.repository';
import { TransactionalOutcomes } from '../../src/transactional/transactional-outcomes';
import { TransactionalSendProcessor } from '../../src/transactional/transactional-send.processor';
import { TransactionalSweeper } from '../../src/transactional/transactional-sweeper';
import { SmtpSink } from '../support/smtp-sink';
import { TestApi, TestEnv } from '../support/test-env';
import { waitFor } from '../support/wait-for';

/** Checks a probe until it answers something other than undefined. */
const until = <T>(probe: () => Promise<T | undefined> | T | undefined) =>
  waitFor(probe, { timeoutMs: 15_000, message: 'condition not met in time' });

describe('transactional sends', () => {
  let sink: SmtpSink;
  let env: TestEnv;
  let api: TestApi;
  let accountId: string;
  let auth: string;
  let seq = 0;

  /** A recipient no other test uses, so the sink can be read per test. */
  const recipient = (name = 'user') => `${name}-${++seq}@example.com`;
  const at = (to: string) => sink.messages.filter((m) => m.to.includes(to.toLowerCase()));

  const send = (body: object, key?: string, app: TestApi = api) => {
    const req = request(app.server).post('/v1/transactional/send').set('Authorization', auth);
    if (key !== undefined) void req.set('Idempotency-Key', key);
    return req.send(body);
  };
  const message = (to: string, overrides: object = {}) => ({
    to,
    from: 'Acme <hello@acme.test>',
    subject: 'Your receipt',
    html: '<p>Thanks!</p>',
    text: 'Thanks!',
    ...overrides,
  });
  const status = (id: string) =>
    request(api.server).get(`/v1/transactional/${id}`).set('Authorization', auth);
  const settled = (id: string, timeoutMs = 15_000) =>
    waitFor(
      async () => {
        const response = await status(id);
        return response.body.status === 'queued' ? undefined : response;
      },
      { timeoutMs, message: 'condition not met in time' },
    );
  /** A subscriber of the account with this email (and these fields). */
  const subscribe = (email: string, fields: Record<string, unknown> = {}) =>
    request(api.server)
      .post('/v1/subscribers')
      .set('Authorization', auth)
      .send({ email, ...fields })
      .expect(201);
  /**
   * Every transactional job has run to its end (none waiting, running or scheduled for a
   * retry): whatever the sink holds now is all that will ever arrive, so "exactly once" and
   * "never" can be asserted.
   */
  const drained = () =>
    waitFor(async () => {
      const queue = api.app.get<Queue>(getQueueToken(QUEUES.transactional));
      const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
      return Object.values(counts).every((count) => count === 0);
    });

  beforeAll(async () => {
    sink = await SmtpSink.start();
    // These tests send from domains nobody verified; test/e2e/sender-domains covers the check.
    env = await TestEnv.create({
      SMTP_URL: sink.url,
      ALLOW_UNVERIFIED_FROM: '1',
      // Temporary refusals are tried again after 1 s, then 2 s, and given up after 4 s.
      SMTP_RETRY_FIRST_SECONDS: '1',
      SMTP_RETRY_MAX_SECONDS: '2',
      SMTP_RETRY_HORIZON_SECONDS: '4',
      // One key sends every test's mail, some tests ten at once: on a fast machine the tests
      // together passed the default 10 sends a second. test/e2e/rate-limits covers the limit.
      RATE_LIMIT_SEND: '1000',
    });
    api = await TestApi.start(env);
    ({ accountId, auth } = await api.tenant());
  });
  afterAll(async () => {
    await api?.close();
    await env?.dispose();
    await sink?.close();
  });

  it('writes nothing when its worker warms the send path up at boot', async () => {
    // The warm-up sent a message that does not exist: every statement had to match nothing.
    const db = new Client({ connectionString: env.config.database.directUrl });
    await db.connect();
    try {
      const { rows } = await db.query<{ n: number }>(
        `SELECT ((SELECT count(*) FROM transactional_messages) + (SELECT count(*) FROM messages)
               + (SELECT count(*) FROM message_events) + (SELECT count(*) FROM daily_stats))::int AS n`,
      );
      expect(rows[0].n).toBe(0);
    } finally {
      await db.end();
    }
  });

  it('accepts a send without a key, delivers it once, and reports it sent', async () => {
    const to = recipient();
    const accepted = await send(message(to));
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual({ id: expect.any(String), status: 'queued' });
    expect(accepted.headers['idempotent-replayed']).toBeUndefined();

    const done = await settled(accepted.body.id);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      id: accepted.body.id,
      status: 'sent',
      to,
      from: 'Acme <hello@acme.test>',
      subject: 'Your receipt',
      message_id: `<${accepted.body.id}@acme.test>`,
      attempts: 1,
      error: null,
      sent_at: expect.any(String),
    });
    expect(at(to)).toHaveLength(1);
    expect(at(to)[0].headers.subject).toBe('Your receipt');
    expect(at(to)[0].headers['message-id']).toBe(`<${accepted.body.id}@acme.test>`);
    expect(at(to)[0].body).toContain('<p>Thanks!</p>');
    // The envelope sender is a VERP address (BOUNCE_DOMAIN defaults to PUBLIC_URL's host).
    expect(at(to)[0].from).toMatch(/^b-[a-z2-7]{36}@localhost$/);
  });

  it('replays the first response for the same key and payload, and sends once', async () => {
    const to = recipient();
    const key = `order-${newId()}`;
    const first = await send(message(to), key);
    expect(first.status).toBe(202);
    await settled(first.body.id);

    // Same payload, members in another order: the same request.
    const { html, text, ...rest } = message(to);
    const again = await send({ text, ...rest, html }, key);
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');

    await drained();
    expect(at(to)).toHaveLength(1);
    const rows = await env.sql('SELECT id FROM transactional_messages WHERE to_address = $1', [to]);
    expect(rows).toHaveLength(1);
  });

  it('answers 409 for the same key with another payload', async () => {
    const to = recipient();
    const key = `k-${newId()}`;
    await send(message(to), key).expect(202);
    const other = await send(message(to, { subject: 'Something else' }), key);
    expect(other.status).toBe(409);
    expect(other.body).toEqual({
      error: { code: 'conflict', message: expect.any(String), details: [] },
    });
  });

  it('sends exactly once for 10 concurrent identical requests with a fresh key', async () => {
    const to = recipient('burst');
    const key = `burst-${newId()}`;
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => send(message(to), key) as unknown as Promise<Response>),
    );
    const fresh = responses.filter((r) => r.status === 202 && !r.headers['idempotent-replayed']);
    const replays = responses.filter((r) => r.headers['idempotent-replayed'] === 'true');
    const conflicts = responses.filter((r) => r.status === 409);
    expect(fresh).toHaveLength(1);
    expect(replays.length + conflicts.length).toBe(9);
    for (const replay of replays) expect(replay.body).toEqual(fresh[0].body);

    await settled(fresh[0].body.id);
    await drained();
    expect(at(to)).toHaveLength(1);
  });

  it('refuses an erased recipient with 409 and audits it without the address', async () => {
    const to = recipient('erased');
    await request(api.server)
      .post('/v1/erasures')
      .set('Authorization', auth)
      .send({ email: to })
      .expect(200);

    const refused = await send(message(to.toUpperCase()), `erased-${newId()}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('conflict');
    // The same response as a reused key's: a 409 never reveals an erased recipient.
    const key = `k-${newId()}`;
    await send(message(recipient()), key).expect(202);
    const reused = await send(message(recipient()), key);
    expect(reused.status).toBe(409);
    expect(refused.body).toEqual(reused.body);

    const audit = await env.sql<{ action: string; row: string }>(
      `SELECT action, row_to_json(a)::text AS row FROM audit_events a WHERE account_id = $1`,
      [accountId],
    );
    const refusal = audit.filter((a) => a.action === 'erased_identity.write_refused');
    expect(refusal).toHaveLength(1);
    expect(refusal[0].row).toContain('POST /v1/transactional/send');
    for (const event of audit) {
      expect(event.row.toLowerCase()).not.toContain(to.toLowerCase());
      expect(event.row.toLowerCase()).not.toContain(to.split('@')[0]);
    }
    await drained();
    expect(at(to)).toHaveLength(0);
  });

  /**
   * Holds the recipient's identity lock on a connection of the test's while a send runs into
   * it: the send waits for the lock; `whileHeld` (given the holder and the identity's hash)
   * then changes the database under it, and the lock is let go. The send's answer.
   */
  async function sendBehindIdentityLock(
    to: string,
    key: string,
    whileHeld: (holder: Client, hash: string) => Promise<void>,
  ): Promise<Response> {
    const hash = api.app.get(ErasureGuard).emailHash(accountId as AccountId, to);
    const holder = new Client({ connectionString: env.config.database.directUrl });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
        `${accountId}:${hash}`,
      ]);
      const answer = send(message(to), key).then((response) => response);
      await env.waitForLockWaiter('%BEGIN; SELECT count(pg_advisory_xact_lock%', 'no send waits');
      await whileHeld(holder, hash);
      await holder.query('COMMIT');
      return await answer;
    } finally {
      await holder.end();
    }
  }

  /** How many message rows and message log rows the recipient has. */
  async function storedFor(to: string) {
    const [row] = await env.sql<{ messages: number; logged: number }>(
      `SELECT (SELECT count(*) FROM transactional_messages WHERE to_address = $1)::int AS messages,
              (SELECT count(*) FROM messages WHERE recipient = $1)::int AS logged`,
      [to],
    );
    return row;
  }

  it('refuses a recipient erased while the send waited for the identity', async () => {
    const to = recipient('erased-meanwhile');
    const refused = await sendBehindIdentityLock(to, `late-${newId()}`, async (holder, hash) => {
      // What an erasure writes under the same lock: the identity's tombstone.
      await holder.query(
        'INSERT INTO erased_identities (account_id, email_hash) VALUES ($1::uuid, $2)',
        [accountId, hash],
      );
    });
    expect(refused.status).toBe(409);
    expect(await storedFor(to)).toEqual({ messages: 0, logged: 0 });
  });

  it('stores nothing when its key was taken over while the send waited', async () => {
    const to = recipient('taken-over');
    const key = `taken-${newId()}`;
    const answer = await sendBehindIdentityLock(to, key, async (holder) => {
      // Another request's claim on the key, as after this one's lease ran out.
      const [claimed] = (
        await holder.query(
          `UPDATE idempotency_keys SET message_id = $3::uuid
            WHERE account_id = $1::uuid AND key = $2 RETURNING key`,
          [accountId, key, newId()],
        )
      ).rows;
      expect(claimed).toEqual({ key });
    });
    expect(answer.status).toBe(409);
    expect(await storedFor(to)).toEqual({ messages: 0, logged: 0 });
  });

  it('answers 400 for an empty or overlong key, and accepts 255 characters', async () => {
    const to = recipient();
    const empty = await send(message(to), '');
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe('invalid_request');
    const long = await send(message(to), 'k'.repeat(256));
    expect(long.status).toBe(400);
    expect(long.body.error.code).toBe('invalid_request');
    await send(message(to), 'k'.repeat(255)).expect(202);
    // The header is read with the request, before the body is validated.
    const both = await send(message(to, { from: 'not an address' }), 'k'.repeat(256));
    expect(both.status).toBe(400);
    expect(both.body.error.code).toBe('invalid_request');
  });

  it('validates the payload before it claims a key', async () => {
    const key = `v-${newId()}`;
    const to = recipient();
    const missing = await send({ from: 'a@acme.test', subject: 's', text: 't' }, key);
    expect(missing.status).toBe(400);
    const badFrom = await send(message(to, { from: 'not an address' }), key);
    expect(badFrom.status).toBe(422);
    expect(badFrom.body.error.details).toEqual([
      { field: 'from', code: 'invalid_format', message: expect.any(String) },
    ]);
    const noContent = await send({ to, from: 'a@acme.test', subject: 's' }, key);
    expect(noContent.status).toBe(400);
    const both = await send(message(to, { template_id: newId() }), key);
    expect(both.status).toBe(422);
    expect(both.body.error.details[0]).toMatchObject({ field: 'template_id' });
    const unknownTemplate = await send(
      { to, from: 'a@acme.test', template_id: newId(), data: {} },
      key,
    );
    expect(unknownTemplate.status).toBe(422);
    expect(unknownTemplate.body.error.details[0]).toMatchObject({
      field: 'template_id',
      code: 'not_found',
    });
    const twoLines = await send(
      { to, from: 'a@acme.test', subject: 'a\r\nBcc: x@evil.test', template_id: newId() },
      key,
    );
    expect(twoLines.status).toBe(422);
    expect(twoLines.body.error.details[0]).toMatchObject({ field: 'subject' });
    const dataInline = await send(message(to, { data: { a: 1 } }), key);
    expect(dataInline.status).toBe(422);
    // None of these held the key.
    await send(message(to), key).expect(202);
  });

  it('renders a template with data over the subscriber’s fields and counts the send', async () => {
    const to = recipient('ada');
    const subscriber = await subscribe(to, { first_name: 'Ada' });
    const template = await api.make.template(accountId, {
      name: 'receipt',
      subject: 'Hi {{first_name}}',
      html: '<p>{{first_name}}: order {{order}}</p>',
      text: '{{first_name}}: order {{order}}',
    });
    const accepted = await send({
      to,
      from: 'shop@acme.test',
      template_id: template.id,
      data: { order: 'A-17' },
    }).expect(202);
    const done = await settled(accepted.body.id);
    expect(done.body).toMatchObject({
      status: 'sent',
      subject: 'Hi Ada',
      template_id: template.id,
    });
    expect(at(to)[0].headers.subject).toBe('Hi Ada');
    expect(at(to)[0].body).toContain('Ada: order A-17');

    const after = await request(api.server)
      .get(`/v1/subscribers/${subscriber.body.id}`)
      .set('Authorization', auth)
      .expect(200);
    expect(after.body.statistics).toMatchObject({
      sent: 1,
      delivered: 1,
      last_sent_at: expect.any(String),
    });
  });

  it('marks a permanently refused message failed and counts the hard bounce', async () => {
    const to = recipient('bounce');
    const subscriber = await subscribe(to);
    sink.verdict = (m) =>
      m.to.includes(to) ? { code: 550, message: `5.1.1 <${to}> no such user` } : undefined;
    try {
      const accepted = await send(message(to)).expect(202);
      const done = await settled(accepted.body.id);
      expect(done.body.status).toBe('failed');
      expect(done.body.error).toContain('550');
      expect(done.body.error).not.toContain(to);
      expect(done.body.attempts).toBe(1);
    } finally {
      sink.verdict = () => undefined;
    }
    const after = await request(api.server)
      .get(`/v1/subscribers/${subscriber.body.id}`)
      .set('Authorization', auth)
      .expect(200);
    expect(after.body.status).toBe('bounced');
    expect(after.body.statistics).toMatchObject({ sent: 1, delivered: 0, hard_bounces: 1 });
    // …and suppressed: a second message to the address is refused up front.
    const again = await send(message(to)).expect(422);
    expect(again.body.error.details).toEqual([
      expect.objectContaining({ field: 'to', code: 'suppressed' }),
    ]);
  });

  it('retries a temporary refusal with backoff', async () => {
    const to = recipient('greylisted');
    let refusals = 0;
    sink.verdict = (m) => {
      if (!m.to.includes(to) || refusals > 0) return undefined;
      refusals += 1;
      return { code: 451, message: 'greylisted, try later' };
    };
    try {
      const accepted = await send(message(to)).expect(202);
      const done = await settled(accepted.body.id);
      expect(done.body).toMatchObject({ status: 'sent', attempts: 2, error: null });
      expect(at(to)).toHaveLength(1);
    } finally {
      sink.verdict = () => undefined;
    }
  });

  // Delayed retries may run late on a loaded machine (never early), so the test checks the
  // rule rather than a count: each retry waits at least its backoff (1 s, then 2 s), and the
  // refusal that fails the message comes at least the 4 s horizon after the first one.
  it('fails a message the relay refuses for longer than the retry horizon, as a soft bounce', async () => {
    const to = recipient('full-mailbox');
    const subscriber = await subscribe(to);
    const refusedAt: number[] = [];
    sink.verdict = (m) => {
      if (!m.to.includes(to)) return undefined;
      refusedAt.push(Date.now());
      return { code: 452, message: 'mailbox full, try later' };
    };
    try {
      const accepted = await send(message(to)).expect(202);
      const done = await settled(accepted.body.id, 20_000);
      expect(done.body).toMatchObject({
        status: 'failed',
        error: expect.stringContaining('452'),
      });
      // On time: tried at 0, 1, 3 and 5 s, the refusal at 5 s past the horizon. Late retries
      // can reach the horizon a try earlier.
      expect(refusedAt.length).toBeGreaterThanOrEqual(3);
      expect(refusedAt.length).toBeLessThanOrEqual(4);
      expect(done.body.attempts).toBe(refusedAt.length);
      const gaps = refusedAt.slice(1).map((at, index) => at - refusedAt[index]);
      gaps.forEach((gap, index) => expect(gap).toBeGreaterThanOrEqual(index === 0 ? 900 : 1900));
      expect(refusedAt[refusedAt.length - 1] - refusedAt[0]).toBeGreaterThanOrEqual(4000);
    } finally {
      sink.verdict = () => undefined;
    }
    const after = await request(api.server)
      .get(`/v1/subscribers/${subscriber.body.id}`)
      .set('Authorization', auth)
      .expect(200);
    expect(after.body.statistics).toMatchObject({ sent: 1, delivered: 0, hard_bounces: 0 });
    expect(after.body.status).toBe('subscribed');
  });

  it('scrubs stored messages and keys when their recipient is erased', async () => {
    const to = recipient('forget-me');
    const key = `f-${newId()}`;
    const accepted = await send(message(to, { subject: 'Private matter' }), key).expect(202);
    await settled(accepted.body.id);
    await request(api.server)
      .post('/v1/erasures')
      .set('Authorization', auth)
      .send({ email: to })
      .expect(200);

    const after = await status(accepted.body.id).expect(200);
    expect(after.body).toMatchObject({ status: 'sent', to: null, subject: null });
    const rows = await env.sql<{ row: string }>(
      'SELECT row_to_json(t)::text AS row FROM transactional_messages t WHERE id = $1',
      [accepted.body.id],
    );
    expect(rows[0].row).not.toContain('forget-me');
    expect(rows[0].row).not.toContain('Private matter');
    const keys = await env.sql('SELECT 1 FROM idempotency_keys WHERE key = $1', [key]);
    expect(keys).toHaveLength(0);
    // The same request again is now a named write to an erased identity.
    await send(message(to, { subject: 'Private matter' }), key).expect(409);
  });

  it('shows only the caller’s own messages', async () => {
    const accepted = await send(message(recipient())).expect(202);
    const other = await api.tenant('Other');
    await request(api.server)
      .get(`/v1/transactional/${accepted.body.id}`)
      .set('Authorization', other.auth)
      .expect(404);
    await status('not-an-id').expect(404);
    await status(newId()).expect(404);
  });

  describe('recovery', () => {
    it('sends a message whose job was lost once, even with a duplicate job', async () => {
      const worker = api.app.get(TransactionalSendProcessor).worker;
      const queue = api.app.get<Queue>(getQueueToken(QUEUES.transactional));
      const to = recipient('lost-job');
      await worker.pause();
      let id: string;
      try {
        id = (await send(message(to)).expect(202)).body.id;
        // As if the process died between commit and enqueue: the job never existed.
        expect(await queue.remove(id)).toBe(1);
        // A stray duplicate job for the same message must not send it a second time.
        await queue.add(
          'send',
          { accountId, messageId: id },
          { jobId: `dup-${id}`, removeOnComplete: true },
        );
      } finally {
        await worker.resume();
      }
      await drained();
      await api.app.get(TransactionalSweeper).sweep(0);
      const done = await settled(id);
      expect(done.body.status).toBe('sent');
      await drained();
      expect(at(to)).toHaveLength(1);
    });

    it('fences a claim: a lapsed claim is taken over, and its first worker’s writes count for nothing', async () => {
      const worker = api.app.get(TransactionalSendProcessor).worker;
      const messages = api.app.get(TransactionalMessagesRepository);
      const outcomes = api.app.get(TransactionalOutcomes);
      const to = recipient('fenced');
      // The sweep runs on its own timer in this process: a pass between the lease's lapse and
      // the renewal below would requeue the message first. It is held still, as the worker is.
      const sweeper = api.app.get(TransactionalSweeper);
      await sweeper.onModuleDestroy();
      await worker.pause();
      let id: string;
      try {
        id = (await send(message(to)).expect(202)).body.id;
        const first = (await messages.claim(accountId as AccountId, id, 60_000))!;
        expect(first.attempts).toBe(1);
        // Held: nobody else may take it, not even a second job for the same message.
        expect(await messages.claim(accountId as AccountId, id, 60_000)).toBeUndefined();

        // The first worker froze past its lease: the sweep requeues the message. Until another
        // worker claims it, the first one's outcome still counts (it keeps it from going twice).
        await env.sql(
          `UPDATE transactional_messages SET lease_until = now() - interval '1 second' WHERE id = $1`,
          [id],
        );
        expect(await messages.renewLease(first, 60_000)).toBe(true);
        await env.sql(
          `UPDATE transactional_messages SET lease_until = now() - interval '1 second' WHERE id = $1`,
          [id],
        );
        const second = (await messages.claim(accountId as AccountId, id, 60_000))!;
        expect(second.attempts).toBe(2);
        // Taken over: the first worker can neither renew, nor record, nor give the claim back.
        expect(await messages.renewLease(first, 60_000)).toBe(false);
        expect(await outcomes.sent(first, '<x@y>', first.toAddress!)).toBe(false);
        await messages.release(first, 'late');
        expect((await status(id).expect(200)).body).toMatchObject({
          status: 'queued',
          attempts: 2,
        });
        expect(await outcomes.sent(second, '<x@y>', second.toAddress!)).toBe(true);
        expect((await status(id).expect(200)).body.status).toBe('sent');
      } finally {
        await worker.resume();
        sweeper.onApplicationBootstrap();
      }
      await drained();
      expect(at(to)).toHaveLength(0);
    });

    it('requeues a claim whose worker died once its lease ran out, and sends it', async () => {
      const worker = api.app.get(TransactionalSendProcessor).worker;
      const messages = api.app.get(TransactionalMessagesRepository);
      const to = recipient('orphaned');
      await worker.pause();
      let id: string;
      try {
        id = (await send(message(to)).expect(202)).body.id;
        // A worker claimed it and died: its claim is there, its job is gone.
        await messages.claim(accountId as AccountId, id, 60_000);
        await api.app.get<Queue>(getQueueToken(QUEUES.transactional)).remove(id);
        await api.app.get(TransactionalSweeper).sweep();
        expect((await status(id).expect(200)).body.attempts).toBe(1); // its lease still holds
        await env.sql(
          `UPDATE transactional_messages SET lease_until = now() - interval '1 second' WHERE id = $1`,
          [id],
        );
        expect((await api.app.get(TransactionalSweeper).sweep()).requeued).toBe(1);
      } finally {
        await worker.resume();
      }
      const done = await settled(id);
      expect(done.body).toMatchObject({ status: 'sent', attempts: 2 });
      await drained();
      expect(at(to)).toHaveLength(1);
    });

    it('frees a key whose request died mid-way, and holds one still in progress', async () => {
      const stale = `stale-${newId()}`;
      const live = `live-${newId()}`;
      for (const [key, lockedUntil] of [
        [stale, "now() - interval '1 second'"],
        [live, "now() + interval '1 minute'"],
      ]) {
        await env.sql(
          `INSERT INTO idempotency_keys
             (account_id, key, fingerprint, message_id, state, locked_until, expires_at)
           VALUES ($1, $2, 'x', $3, 'processing', ${lockedUntil}, now() + interval '1 day')`,
          [accountId, key, newId()],
        );
      }
      const to = recipient();
      const taken = await send(message(to), stale);
      expect(taken.status).toBe(202);
      expect(taken.headers['idempotent-replayed']).toBeUndefined();
      await send(message(to), live).expect(409);
    });

    it('replaces an expired key', async () => {
      const key = `old-${newId()}`;
      await env.sql(
        `INSERT INTO idempotency_keys (account_id, key, fingerprint, message_id, state,
           response_status, response_body, locked_until, expires_at)
         VALUES ($1, $2, 'x', $3, 'completed', 202, '{}', now(), now() - interval '1 second')`,
        [accountId, key, newId()],
      );
      const fresh = await send(message(recipient()), key);
      expect(fresh.status).toBe(202);
      expect(fresh.headers['idempotent-replayed']).toBeUndefined();
      const pruned = await api.app.get(TransactionalSweeper).sweep();
      expect(pruned.pruned).toBeGreaterThanOrEqual(0);
    });
  });
});

describe('transactional sends without SMTP_URL (outbox files)', () => {
  let env: TestEnv;
  let api: TestApi;

  beforeAll(async () => {
    env = await TestEnv.create();
    api = await TestApi.start(env);
  });
  afterAll(async () => {
    await api?.close();
    await rm(env.config.outboxDir, { recursive: true, force: true });
    await env?.dispose();
  });

  it('stores an .eml copy per message and deletes it when the recipient is erased', async () => {
    const { auth } = await api.tenant();
    const to = 'kept-on-disk@example.com';
    const accepted = await request(api.server)
      .post('/v1/transactional/send')
      .set('Authorization', auth)
      .send({ to, from: 'shop@acme.test', subject: 'Stored', text: 'On disk' })
      .expect(202);
    const id: string = accepted.body.id;
    await until(async () => {
      const response = await request(api.server)
        .get(`/v1/transactional/${id}`)
        .set('Authorization', auth);
      return response.body.status === 'sent' ? true : undefined;
    });
    const folders = await readdir(env.config.outboxDir);
    const folder = folders.find((name) => name.startsWith('transactional-'));
    expect(folder).toBeDefined();
    // Named by the erasure hash: the folder name does not reveal the address.
    expect(folder).not.toContain('kept-on-disk');
    const eml = await readFile(join(env.config.outboxDir, folder!, `${id}.eml`), 'utf8');
    expect(eml).toContain(to);
    expect(eml).toMatch(/^Return-Path: <b-[a-z2-7]{36}@localhost>\r\n/);

    await request(api.server)
      .post('/v1/erasures')
      .set('Authorization', auth)
      .send({ email: to })
      .expect(200);
    expect(await readdir(env.config.outboxDir)).not.toContain(folder);
  });
});
