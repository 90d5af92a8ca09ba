import { getQueueToken } from '@nestjs/bullmq';
import { Queue } from 'bullmq';
import request from 'supertest';
import { QUEUES } from '../../src/platform/queue/queue.module';
import { waitUntilSent } from '../support/campaign-fixtures';
import { Tenant } from '../support/factories';
import { SmtpSink } from '../support/smtp-sink';
import { TestApi, TestEnv } from '../support/test-env';
import { waitFor } from '../support/wait-for';

/**
 * Schedule, pause, resume, cancel, test, duplicate and the edit rules, end to end: the API
 * with its embedded workers, BullMQ, PostgreSQL and an SMTP sink whose counts must be exact.
 */
describe('campaign operations', () => {
  let sink: SmtpSink;
  let env: TestEnv;
  let api: TestApi;

  beforeAll(async () => {
    sink = await SmtpSink.start();
    env = await TestEnv.create({
      SMTP_URL: sink.url,
      PUBLIC_URL: 'https://herald.test',
      RATE_LIMIT: '100000',
      RATE_LIMIT_SEND: '100000',
      ALLOW_UNVERIFIED_FROM: '1',
    });
    api = await TestApi.start(env);
  });
  afterAll(async () => {
    await api?.close();
    await env?.dispose();
    await sink?.close();
  });

  const call = (tenant: Tenant, method: 'get' | 'post' | 'patch' | 'delete', path: string) =>
    request(api.server)[method](`/v1/campaigns${path}`).set('Authorization', tenant.auth);
  const create = async (tenant: Tenant, body: object = {}) =>
    (
      await call(tenant, 'post', '')
        .send({
          name: 'Ops',
          subject: 'Hello {{first_name}}',
          from: 'Acme <news@acme.test>',
          html: '<html><body><p>Hi {{first_name}}</p><a href="https://acme.test/a">A</a></body></html>',
          text: 'Hi {{first_name}}',
          ...body,
        })
        .expect(201)
    ).body as { id: string };
  const to = (domain: string) => sink.messages.filter((m) => m.to[0].endsWith(`@${domain}`));
  const ledger = async (campaignId: string) => {
    const rows = await env.sql<{ status: string; count: string }>(
      `SELECT status, count(*) FROM campaign_recipients WHERE campaign_id = $1 GROUP BY status`,
      [campaignId],
    );
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.count)])) as Record<
      string,
      number
    >;
  };
  const delivery = () => api.app.get<Queue>(getQueueToken(QUEUES.campaignDelivery));
  /**
   * No delivery job runs or waits, no recipient is claimed, and the campaign's counters have
   * caught up with the ledger: nothing can be sent now, and every number is final.
   */
  const quiet = async (tenant: Tenant, campaignId: string) => {
    const counts = await delivery().getJobCounts('active', 'waiting', 'prioritized');
    const rows = await ledger(campaignId);
    if (counts.active + counts.waiting + counts.prioritized > 0 || rows.sending) return false;
    const stats = await call(tenant, 'get', `/${campaignId}/stats`).expect(200);
    return stats.body.delivered === (rows.sent ?? 0);
  };
  /** When the last recipient of the campaign was claimed. */
  const lastClaim = async (campaignId: string) => {
    const [row] = await env.sql<{ last: Date }>(
      `SELECT max(claimed_at) AS last FROM campaign_recipients WHERE campaign_id = $1`,
      [campaignId],
    );
    return row.last.getTime();
  };
  const inFuture = (ms: number, offset = '+02:00') => {
    // The same instant written in another zone, as the dashboard does for a chosen timezone.
    const sign = offset.startsWith('-') ? -1 : 1;
    const minutes = sign * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4, 6)));
    const local = new Date(Date.now() + ms + minutes * 60_000).toISOString().slice(0, 19);
    return `${local}${offset}`;
  };

  describe('scheduling', () => {
    let tenant: Tenant;
    beforeAll(async () => {
      tenant = await api.tenant('Scheduler');
    });

    it('refuses a send_at in the past, more than a year away or without an offset (422)', async () => {
      const { id } = await create(tenant);
      for (const send_at of [
        inFuture(-60_000),
        inFuture(367 * 24 * 3600_000),
        '2030-01-01T09:00:00',
        '2030-02-30T09:00:00Z',
        'tomorrow',
      ]) {
        const refused = await call(tenant, 'post', `/${id}/schedule`).send({ send_at }).expect(422);
        expect(refused.body.error.details).toEqual([expect.objectContaining({ field: 'send_at' })]);
      }
      await call(tenant, 'post', `/${id}/schedule`).send({}).expect(400);
      const read = await call(tenant, 'get', `/${id}`).expect(200);
      expect(read.body).toMatchObject({ status: 'draft', send_at: null });
    });

    it('fires a scheduled campaign within 5 s of send_at, with edits made while scheduled', async () => {
      tenant = await api.tenant('Scheduled send');
      const people = await api.make.subscribers(tenant.accountId, 20, { domain: 'sched.test' });
      const { id } = await create(tenant);
      const sendAt = inFuture(3000, '-05:00');
      const scheduled = await call(tenant, 'post', `/${id}/schedule`)
        .send({ send_at: sendAt })
        .expect(200);
      expect(scheduled.body.status).toBe('scheduled');
      expect(Date.parse(scheduled.body.send_at)).toBe(Date.parse(sendAt));
      // Scheduled is still editable; sending has not begun.
      await call(tenant, 'patch', `/${id}`)
        .send({ subject: 'Scheduled {{first_name}}' })
        .expect(200);
      expect(await ledger(id)).toEqual({});

      await waitUntilSent(api.server, tenant.auth, id, 30_000);
      const [row] = await env.sql<{ started_at: Date; first_sent: Date }>(
        `SELECT c.started_at, (SELECT min(sent_at) FROM campaign_recipients r
                                 WHERE r.campaign_id = c.id) AS first_sent
           FROM campaigns c WHERE c.id = $1`,
        [id],
      );
      const late = row.started_at.getTime() - Date.parse(sendAt);
      // Both clocks are PostgreSQL's and this process's; on one machine they agree.
      expect(late).toBeGreaterThanOrEqual(0);
      expect(late).toBeLessThan(5000);
      expect(row.first_sent.getTime()).toBeGreaterThanOrEqual(Date.parse(sendAt));
      const received = to('sched.test');
      expect(received.map((m) => m.to[0]).sort()).toEqual(people.map((p) => p.email).sort());
      expect(received[0].headers.subject).toMatch(/^Scheduled Person \d+$/);
    });

    it('unschedules back to draft; a later send works as for any draft', async () => {
      const { id } = await create(tenant);
      await call(tenant, 'post', `/${id}/schedule`)
        .send({ send_at: inFuture(3600_000) })
        .expect(200);
      // Moving it is scheduling again.
      const moved = await call(tenant, 'post', `/${id}/schedule`)
        .send({ send_at: inFuture(7200_000, 'Z') })
        .expect(200);
      expect(moved.body.status).toBe('scheduled');
      const draft = await call(tenant, 'delete', `/${id}/schedule`).expect(200);
      expect(draft.body).toMatchObject({ status: 'draft', send_at: null });
      const again = await call(tenant, 'delete', `/${id}/schedule`).expect(409);
      expect(again.body.error.code).toBe('conflict');
    });

    it('sends a scheduled campaign at once on POST /send', async () => {
      const local = await api.tenant('Send now');
      await api.make.subscribers(local.accountId, 3, { domain: 'now.test' });
      const { id } = await create(local);
      await call(local, 'post', `/${id}/schedule`)
        .send({ send_at: inFuture(3600_000) })
        .expect(200);
      await call(local, 'post', `/${id}/send`).expect(202);
      await waitUntilSent(api.server, local.auth, id);
      expect(to('now.test')).toHaveLength(3);
      // Sending, or sent: the schedule cannot come back.
      await call(local, 'post', `/${id}/schedule`)
        .send({ send_at: inFuture(3600_000) })
        .expect(409);
    });
  });

  describe('pause and resume under load', () => {
    const domain = 'pause.test';
    const audience = 1500;
    let tenant: Tenant;
    let id: string;
    let pausedAt: number;
    let atPause: Record<string, number>;

    beforeAll(async () => {
      tenant = await api.tenant('Pauser');
      await api.make.subscribers(tenant.accountId, audience, { domain });
      id = (await create(tenant)).id;
      // Freeze the relay after 200 messages, so the pause lands while workers hold claims.
      sink.holdAfter = sink.messages.length + 200;
      await call(tenant, 'post', `/${id}/send`).expect(202);
      await waitFor(() => sink.held > 0, { timeoutMs: 30_000, message: 'the sink never froze' });
      const paused = await call(tenant, 'post', `/${id}/pause`).expect(200);
      pausedAt = Date.now();
      expect(paused.body.status).toBe('paused');
      sink.release();
      await waitFor(() => quiet(tenant, id), {
        timeoutMs: 60_000,
        message: 'the workers never stopped',
      });
      atPause = await ledger(id);
    });

    it('stops claiming within seconds; what was in flight is delivered and recorded', async () => {
      // Jobs re-read the status at least once a second before they claim.
      expect(await lastClaim(id)).toBeLessThan(pausedAt + 3000);
      const stats = await call(tenant, 'get', `/${id}/stats`).expect(200);
      expect(stats.body.status).toBe('paused');
      expect(atPause.pending).toBeGreaterThan(0);
      expect(atPause.sent).toBe(to(domain).length);
      expect(stats.body.delivered).toBe(to(domain).length);
      expect(atPause.sent + atPause.pending).toBe(audience);
    });

    it('allows no second pause, no edit and no resume of a campaign that is not paused', async () => {
      await call(tenant, 'post', `/${id}/pause`).expect(409);
      await call(tenant, 'patch', `/${id}`).send({ name: 'Nope' }).expect(409);
      await call(tenant, 'post', `/${id}/schedule`)
        .send({ send_at: inFuture(60_000) })
        .expect(409);
    });

    it('resumes from the ledger: every recipient gets exactly one message', async () => {
      const resumed = await call(tenant, 'post', `/${id}/resume`).expect(200);
      expect(resumed.body.status).toBe('sending');
      await call(tenant, 'post', `/${id}/resume`).expect(409);
      const stats = await waitUntilSent(api.server, tenant.auth, id, 60_000);
      const received = to(domain).map((m) => m.to[0]);
      expect(received).toHaveLength(audience);
      expect(new Set(received).size).toBe(audience);
      expect(stats).toMatchObject({ recipients: audience, delivered: audience, cancelled: 0 });
      expect(await ledger(id)).toEqual({ sent: audience });
    });
  });

  describe('cancel under load', () => {
    const domain = 'cancel.test';
    const audience = 1500;
    let tenant: Tenant;
    let id: string;
    let cancelled: { progress: { cancelled: number } };
    let cancelledAt: number;

    beforeAll(async () => {
      tenant = await api.tenant('Canceller');
      await api.make.subscribers(tenant.accountId, audience, { domain });
      id = (await create(tenant)).id;
      sink.holdAfter = sink.messages.length + 200;
      await call(tenant, 'post', `/${id}/send`).expect(202);
      await waitFor(() => sink.held > 0, { timeoutMs: 30_000, message: 'the sink never froze' });
      cancelled = (await call(tenant, 'post', `/${id}/cancel`).expect(200)).body;
      cancelledAt = Date.now();
      sink.release();
      await waitFor(() => quiet(tenant, id), {
        timeoutMs: 60_000,
        message: 'the workers never stopped',
      });
    });

    it('sends nobody still pending; the messages in flight finish and are counted', async () => {
      const rows = await ledger(id);
      expect(rows.pending).toBeUndefined();
      expect(await lastClaim(id)).toBeLessThan(cancelledAt + 3000);
      expect(cancelled.progress.cancelled).toBeGreaterThan(0);
      expect(rows.skipped).toBe(cancelled.progress.cancelled);
      expect(rows.sent).toBe(to(domain).length);
      expect(rows.sent + rows.skipped).toBe(audience);
      expect(new Set(to(domain).map((m) => m.to[0])).size).toBe(to(domain).length);
      const stats = await call(tenant, 'get', `/${id}/stats`).expect(200);
      expect(stats.body).toMatchObject({
        status: 'cancelled',
        delivered: rows.sent,
        cancelled: rows.skipped,
        outstanding: 0,
      });
      const campaign = await call(tenant, 'get', `/${id}`).expect(200);
      expect(campaign.body.cancelled_at).not.toBeNull();
      expect(campaign.body.progress.expected_finish_at).toBeNull();
    });

    it('is final: cancel, resume, send, schedule and edits are 409', async () => {
      await call(tenant, 'post', `/${id}/cancel`).expect(409);
      await call(tenant, 'post', `/${id}/resume`).expect(409);
      await call(tenant, 'post', `/${id}/send`).expect(409);
      await call(tenant, 'post', `/${id}/schedule`)
        .send({ send_at: inFuture(60_000) })
        .expect(409);
      await call(tenant, 'patch', `/${id}`).send({ name: 'Nope' }).expect(409);
    });

    it('cancels drafts and scheduled campaigns too, and never a sent one', async () => {
      const draft = await create(tenant, { name: 'Draft' });
      expect((await call(tenant, 'post', `/${draft.id}/cancel`).expect(200)).body).toMatchObject({
        status: 'cancelled',
        progress: { cancelled: 0 },
      });
      const scheduled = await create(tenant, { name: 'Later' });
      await call(tenant, 'post', `/${scheduled.id}/schedule`)
        .send({ send_at: inFuture(3600_000) })
        .expect(200);
      await call(tenant, 'post', `/${scheduled.id}/cancel`).expect(200);

      const small = await api.tenant('Sent already');
      await api.make.subscribers(small.accountId, 2, { domain: 'done.test' });
      const sent = await create(small);
      await call(small, 'post', `/${sent.id}/send`).expect(202);
      await waitUntilSent(api.server, small.auth, sent.id);
      await call(small, 'post', `/${sent.id}/cancel`).expect(409);
      await call(small, 'post', `/${sent.id}/pause`).expect(409);
    });
  });

  describe('test sends', () => {
    let tenant: Tenant;
    let id: string;

    beforeAll(async () => {
      tenant = await api.tenant('Tester');
      await api.make.subscriber(tenant.accountId, {
        email: 'ada@tests.test',
        firstName: 'Ada',
        customFields: { plan: 'gold' },
      });
      id = (
        await create(tenant, {
          subject: 'Hello {{first_name}}',
          html: '<html><body><p>Plan {{plan}}</p><a href="https://acme.test/offer">Offer</a></body></html>',
          text: null,
        })
      ).id;
    });

    it('sends the real rendering marked as a test, without tracking, stats or ledger rows', async () => {
      const before = sink.messages.length;
      const sent = await call(tenant, 'post', `/${id}/test`)
        .send({ emails: ['ada@tests.test', ' someone@tests.test', 'ADA@tests.test'] })
        .expect(200);
      expect(sent.body).toEqual({
        results: [
          { email: 'ada@tests.test', status: 'sent', error: null },
          { email: 'someone@tests.test', status: 'sent', error: null },
        ],
      });
      const received = sink.messages.slice(before);
      expect(received).toHaveLength(2);
      const ada = received.find((m) => m.to[0] === 'ada@tests.test')!;
      expect(ada.headers.subject).toBe('[Test] Hello Ada');
      expect(ada.headers['x-herald-test']).toBe('true');
      expect(ada.headers['list-unsubscribe']).toBeUndefined();
      expect(ada.body).toContain('Plan gold');
      // The footer recipients will get, a text part made from the HTML, no tracking.
      expect(ada.body).toContain('Unsubscribe');
      expect(ada.body).toContain('https://acme.test/offer');
      expect(ada.body).not.toContain('/t/click/');
      expect(ada.body).not.toContain('/t/open/');
      expect(ada.raw).toMatch(/Content-Type: text\/plain/i);
      const other = received.find((m) => m.to[0] === 'someone@tests.test')!;
      expect(other.headers.subject).toBe('[Test] Hello');

      const stats = await call(tenant, 'get', `/${id}/stats`).expect(200);
      expect(stats.body).toMatchObject({ status: 'draft', recipients: 0, sent: 0, delivered: 0 });
      expect(await ledger(id)).toEqual({});
      const [subscriber] = await env.sql<{ stat_sent: number }>(
        `SELECT stat_sent FROM subscribers WHERE email = 'ada@tests.test'`,
      );
      expect(subscriber.stat_sent).toBe(0);
    });

    it('takes at most 5 valid addresses (422 naming the item)', async () => {
      const six = Array.from({ length: 6 }, (_, i) => `t${i}@tests.test`);
      const tooMany = await call(tenant, 'post', `/${id}/test`).send({ emails: six }).expect(422);
      expect(tooMany.body.error.details[0].field).toBe('emails');
      await call(tenant, 'post', `/${id}/test`).send({ emails: [] }).expect(422);
      const bad = await call(tenant, 'post', `/${id}/test`)
        .send({ emails: ['ok@tests.test', 'not an address'] })
        .expect(422);
      expect(bad.body.error.details).toEqual([
        expect.objectContaining({ field: 'emails[1]', code: 'invalid_format' }),
      ]);
      await call(tenant, 'post', `/${id}/test`).send({}).expect(400);
    });

    it('refuses suppressed addresses (422) and erased identities (409)', async () => {
      await request(api.server)
        .post('/v1/suppressions')
        .set('Authorization', tenant.auth)
        .send({ email: 'blocked@tests.test', reason: 'manual' })
        .expect(201);
      const suppressed = await call(tenant, 'post', `/${id}/test`)
        .send({ emails: ['fine@tests.test', 'blocked@tests.test'] })
        .expect(422);
      expect(suppressed.body.error.details).toEqual([
        expect.objectContaining({ field: 'emails[1]', code: 'suppressed' }),
      ]);
      await request(api.server)
        .post('/v1/erasures')
        .set('Authorization', tenant.auth)
        .send({ email: 'gone@tests.test' })
        .expect(200);
      const before = sink.messages.length;
      await call(tenant, 'post', `/${id}/test`)
        .send({ emails: ['gone@tests.test'] })
        .expect(409);
      expect(sink.messages.length).toBe(before);
    });

    it('needs campaigns:send', async () => {
      const { key } = await api.key(tenant.accountId, ['campaigns:read', 'campaigns:write']);
      await request(api.server)
        .post(`/v1/campaigns/${id}/test`)
        .set('Authorization', `Bearer ${key}`)
        .send({ emails: ['ada@tests.test'] })
        .expect(403);
      await request(api.server)
        .post(`/v1/campaigns/${id}/pause`)
        .set('Authorization', `Bearer ${key}`)
        .expect(403);
    });
  });

  describe('duplicate and edits', () => {
    let tenant: Tenant;
    beforeAll(async () => {
      tenant = await api.tenant('Duplicator');
    });

    it('copies a sent campaign into a new draft; edits after sending are 409', async () => {
      await api.make.subscribers(tenant.accountId, 2, { domain: 'dup.test' });
      const template = await api.make.template(tenant.accountId);
      const source = await create(tenant, {
        name: 'Monthly',
        html: undefined,
        text: undefined,
        template_id: template.id,
        rate_per_minute: 1200,
      });
      await call(tenant, 'post', `/${source.id}/send`).expect(202);
      await waitUntilSent(api.server, tenant.auth, source.id);
      const edit = await call(tenant, 'patch', `/${source.id}`).send({ name: 'Late' }).expect(409);
      expect(edit.body.error.code).toBe('conflict');

      const copy = await call(tenant, 'post', `/${source.id}/duplicate`).expect(201);
      expect(copy.body).toMatchObject({
        name: 'Monthly (copy)',
        subject: 'Hello {{first_name}}',
        from: 'Acme <news@acme.test>',
        template_id: template.id,
        html: null,
        text: null,
        rate_per_minute: 1200,
        status: 'draft',
        send_at: null,
        progress: { recipients: 0, sent: 0, cancelled: 0 },
      });
      expect(copy.body.id).not.toBe(source.id);
      // The copy is a draft like any other: editable and sendable.
      await call(tenant, 'patch', `/${copy.body.id}`).send({ rate_per_minute: null }).expect(200);
      await call(tenant, 'post', '/00000000-0000-7000-8000-000000000000/duplicate').expect(404);
    });

    it('validates rate_per_minute', async () => {
      for (const rate_per_minute of [0, -5, 1.5, 'fast', 600_001]) {
        const refused = await call(tenant, 'post', '')
          .send({ name: 'R', subject: 'S', from: 'news@acme.test', text: 'x', rate_per_minute })
          .expect(422);
        expect(refused.body.error.details[0].field).toBe('rate_per_minute');
      }
    });
  });
});
