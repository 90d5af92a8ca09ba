import request from 'supertest';
import { waitUntilSent } from '../support/campaign-fixtures';
import { SmtpSink } from '../support/smtp-sink';
import { TestApi, TestEnv } from '../support/test-env';
import { waitFor } from '../support/wait-for';

/**
 * The suppression list: its API, what it stops (campaign sends, counted by reason, and
 * transactional sends), the one way back (DELETE, audited), and erasure.
 */
describe('suppressions', () => {
  let sink: SmtpSink;
  let env: TestEnv;
  let api: TestApi;
  let tenant: { accountId: string; auth: string };

  beforeAll(async () => {
    sink = await SmtpSink.start();
    env = await TestEnv.create({
      SMTP_URL: sink.url,
      // These tests are about what comes back, not sender domains.
      ALLOW_UNVERIFIED_FROM: '1',
      RATE_LIMIT: '100000',
      RATE_LIMIT_SEND: '100000',
    });
    api = await TestApi.start(env);
    tenant = await api.tenant('Suppressing');
  });
  afterAll(async () => {
    await api?.close();
    await env?.dispose();
    await sink?.close();
  });

  const post = (path: string, body: object, auth = tenant.auth) =>
    request(api.server).post(path).set('Authorization', auth).send(body);
  const get = (path: string, auth = tenant.auth) =>
    request(api.server).get(path).set('Authorization', auth);
  const del = (path: string, auth = tenant.auth) =>
    request(api.server).delete(path).set('Authorization', auth);

  describe('the API', () => {
    it('adds an address (201), normalised, and answers 200 with the same entry the second time', async () => {
      const first = await post('/v1/suppressions', {
        email: ' Manual@Example.COM ',
        reason: 'manual',
      }).expect(201);
      expect(first.body).toEqual({
        email: 'manual@example.com',
        reason: 'manual',
        created_at: expect.any(String),
      });
      const again = await post('/v1/suppressions', { email: 'manual@example.com' }).expect(200);
      expect(again.body).toEqual(first.body);
    });

    it('refuses reasons only Herald sets, bad addresses and a missing email', async () => {
      const reason = await post('/v1/suppressions', {
        email: 'x@example.com',
        reason: 'hard_bounce',
      }).expect(422);
      expect(reason.body.error.details).toEqual([
        expect.objectContaining({ field: 'reason', code: 'invalid_value' }),
      ]);
      const email = await post('/v1/suppressions', { email: 'not an address' }).expect(422);
      expect(email.body.error.details[0].field).toBe('email');
      await post('/v1/suppressions', { reason: 'manual' }).expect(400);
    });

    it('lists entries newest first in cursor pages', async () => {
      const other = await api.tenant('Paging');
      for (const n of [1, 2, 3]) {
        await post('/v1/suppressions', { email: `page${n}@example.com` }, other.auth).expect(201);
      }
      const first = await get('/v1/suppressions?limit=2', other.auth).expect(200);
      const emails = (first.body as { data: { email: string }[] }).data.map((e) => e.email);
      expect(emails).toEqual(['page3@example.com', 'page2@example.com']);
      const second = await get(
        `/v1/suppressions?limit=2&cursor=${first.body.next_cursor}`,
        other.auth,
      ).expect(200);
      expect(second.body).toEqual({
        data: [expect.objectContaining({ email: 'page1@example.com' })],
        next_cursor: null,
      });
      // Another account's cursor is refused, and its list does not show these entries.
      await get(`/v1/suppressions?cursor=${first.body.next_cursor}`).expect(400);
      const mine = await get('/v1/suppressions?limit=100').expect(200);
      expect(JSON.stringify(mine.body)).not.toContain('page1@example.com');
    });

    it('needs subscribers:read to list and subscribers:write to change', async () => {
      const { key: reader } = await api.key(tenant.accountId, ['subscribers:read']);
      const { key: writer } = await api.key(tenant.accountId, ['subscribers:write']);
      await get('/v1/suppressions', `Bearer ${reader}`).expect(200);
      await get('/v1/suppressions', `Bearer ${writer}`).expect(403);
      await post('/v1/suppressions', { email: 'a@example.com' }, `Bearer ${reader}`).expect(403);
      await del('/v1/suppressions/a@example.com', `Bearer ${reader}`).expect(403);
    });

    it('answers 404 when deleting an address that is not listed', async () => {
      const response = await del('/v1/suppressions/nobody%40example.com').expect(404);
      expect(response.body.error.code).toBe('not_found');
    });
  });

  it('refuses a transactional send to a suppressed address with 422 on `to`', async () => {
    await post('/v1/suppressions', { email: 'blocked@example.com' }).expect(201);
    const response = await post('/v1/transactional/send', {
      to: 'Blocked@Example.com',
      from: 'Acme <hi@acme.test>',
      subject: 'Hi',
      text: 'Hello',
    }).expect(422);
    expect(response.body.error).toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'to', code: 'suppressed', message: expect.stringContaining('manual') }],
    });
    const stored = await env.sql(`SELECT 1 FROM transactional_messages WHERE account_id = $1`, [
      tenant.accountId,
    ]);
    expect(stored).toHaveLength(0);
  });

  it('fails a queued message whose address was suppressed after it was accepted, unsent', async () => {
    // Its own installation, with no worker until the address is suppressed.
    const lateEnv = await TestEnv.create({ SMTP_URL: sink.url, ALLOW_UNVERIFIED_FROM: '1' });
    const apiOnly = await TestApi.start(lateEnv, { workers: false });
    let worker: TestApi | undefined;
    try {
      const late = await apiOnly.tenant('Late');
      const send = (path: string, body: object) =>
        request(apiOnly.server).post(path).set('Authorization', late.auth).send(body);
      const accepted = await send('/v1/transactional/send', {
        to: 'late@example.com',
        from: 'Acme <hi@acme.test>',
        subject: 'Hi',
        text: 'Hello',
      }).expect(202);
      await send('/v1/suppressions', { email: 'late@example.com' }).expect(201);

      worker = await TestApi.start(lateEnv);
      const ended = await waitFor(
        async () => {
          const message = await request(apiOnly.server)
            .get(`/v1/transactional/${accepted.body.id}`)
            .set('Authorization', late.auth);
          const body = message.body as { status: string; error: string | null };
          return body.status === 'queued' ? undefined : body;
        },
        { timeoutMs: 30_000, message: 'the message stayed queued' },
      );
      expect(ended).toMatchObject({
        status: 'failed',
        error: expect.stringContaining('suppression list (manual)'),
      });
      expect(sink.messages.filter((m) => m.to.includes('late@example.com'))).toHaveLength(0);
    } finally {
      await worker?.close();
      await apiOnly.close();
      await lateEnv.dispose();
    }
  });

  describe('a campaign to an audience of every status', () => {
    const domain = 'statuses.test';
    let people: { id: string; email: string; index: number }[];
    let stats: Record<string, unknown>;
    const statusOf: Record<number, string> = {
      1: 'unsubscribed',
      2: 'bounced',
      3: 'bounced',
      4: 'complained',
      5: 'pending', // a client's own status: not opted in
    };
    const suppressedSubscribed = [6, 7];
    const hardBounceAtSmtp = 8;

    beforeAll(async () => {
      const account = await api.tenant('Statuses');
      tenant = account;
      people = await api.make.subscribers(account.accountId, 10, { domain });
      for (const [index, status] of Object.entries(statusOf)) {
        await env.sql(`UPDATE subscribers SET status = $2 WHERE id = $1`, [
          people[Number(index)].id,
          status,
        ]);
      }
      for (const index of suppressedSubscribed) {
        await post('/v1/suppressions', { email: people[index].email.toUpperCase() }).expect(201);
      }
      sink.verdict = (message) =>
        message.to[0] === people[hardBounceAtSmtp].email
          ? { code: 550, message: '5.1.1 no such user' }
          : undefined;
      const created = await post('/v1/campaigns', {
        name: 'Everyone',
        subject: 'Hello',
        from: 'Acme <news@acme.test>',
        html: '<p>Hi</p><a href="{{unsubscribe_url}}">Unsubscribe</a>',
        text: 'Hi {{unsubscribe_url}}',
      }).expect(201);
      await post(`/v1/campaigns/${created.body.id}/send`, {}).expect(202);
      stats = await waitUntilSent(api.server, tenant.auth, created.body.id);
      sink.verdict = () => undefined;
    });

    it('mails only subscribed, unsuppressed people', () => {
      const received = sink.messages.filter((m) => m.to[0].endsWith(`@${domain}`));
      expect(received.map((m) => m.to[0]).sort()).toEqual(
        [0, 9].map((i) => people[i].email).sort(),
      );
    });

    it('counts every skip by its reason', () => {
      expect(stats).toMatchObject({
        recipients: 3,
        delivered: 2,
        failed: 1,
        bounces: 1,
        hard_bounces: 1,
        skipped_unsubscribed: 1,
        skipped_other: 1, // the client's `pending`: not opted in
        skipped_bounced: 2,
        skipped_complained: 1,
        skipped_suppressed: 2,
        skipped_erased: 0,
      });
    });

    it('suppresses an address the relay refused with a 5xx, and marks it bounced', async () => {
      const list = await get('/v1/suppressions?limit=100').expect(200);
      expect(list.body.data).toContainEqual(
        expect.objectContaining({ email: people[hardBounceAtSmtp].email, reason: 'hard_bounce' }),
      );
      const subscriber = await get(`/v1/subscribers/${people[hardBounceAtSmtp].id}`).expect(200);
      expect(subscriber.body.status).toBe('bounced');
      expect(subscriber.body.statistics.hard_bounces).toBe(1);
    });

    it('refuses a PATCH back to subscribed while suppressed; DELETE reactivates, audited', async () => {
      const person = people[hardBounceAtSmtp];
      const refused = await request(api.server)
        .patch(`/v1/subscribers/${person.id}`)
        .set('Authorization', tenant.auth)
        .send({ status: 'subscribed' })
        .expect(422);
      expect(refused.body.error.details).toEqual([
        expect.objectContaining({ field: 'status', code: 'suppressed' }),
      ]);

      await del(`/v1/suppressions/${encodeURIComponent(person.email)}`).expect(204);
      const subscriber = await get(`/v1/subscribers/${person.id}`).expect(200);
      expect(subscriber.body.status).toBe('subscribed');
      const audit = await env.sql<{ action: string; subject_hash: string; metadata: object }>(
        `SELECT action, subject_hash, metadata FROM audit_events
          WHERE account_id = $1 AND action = 'suppression.removed'`,
        [tenant.accountId],
      );
      expect(audit).toEqual([
        {
          action: 'suppression.removed',
          subject_hash: expect.any(String),
          metadata: { reason: 'hard_bounce', reactivated_subscriber: true },
        },
      ]);
      expect(JSON.stringify(audit)).not.toContain(person.email);
      await del(`/v1/suppressions/${encodeURIComponent(person.email)}`).expect(404);
    });

    it('leaves a status the client set alone when a manual entry is removed', async () => {
      await del(`/v1/suppressions/${people[6].email}`).expect(204);
      const subscriber = await get(`/v1/subscribers/${people[6].id}`).expect(200);
      expect(subscriber.body.status).toBe('subscribed');
    });
  });

  describe('erasure', () => {
    it('deletes the entry, and a later POST naming the erased address is a 409', async () => {
      await post('/v1/suppressions', { email: 'forget-me@example.com' }).expect(201);
      await post('/v1/erasures', { email: 'forget-me@example.com' }).expect(200);
      const rows = await env.sql(`SELECT 1 FROM suppressions WHERE email_normalized = $1`, [
        'forget-me@example.com',
      ]);
      expect(rows).toHaveLength(0);
      await post('/v1/suppressions', { email: 'forget-me@example.com' }).expect(409);
    });
  });
});
