import request from 'supertest';
import { InboundSmtpServer } from '../../src/inbound/inbound-smtp.server';
import { waitUntilSent } from '../support/campaign-fixtures';
import { abuseReport, deliver, headerBlock } from '../support/feedback-mail';
import { SmtpSink } from '../support/smtp-sink';
import { TestApi, TestEnv } from '../support/test-env';
import { waitFor } from '../support/wait-for';
import { WebhookReceiver } from '../support/webhook-receiver';

const BOUNCE_DOMAIN = 'bounces.acme.test';
/** Lowered from 500 so that a test list of a few hundred is enough to judge. */
const MIN_DELIVERED = 100;

/**
 * The reputation guard over real SMTP on loopback: a campaign whose relay refuses one
 * recipient in ten, or whose recipients complain through an ARF report to the inbound port,
 * pauses itself with its reason and says so in `campaign.paused`; resumed after the list is
 * clean, it finishes. Also what a person's pause, a `pending` subscriber and a PATCH to
 * `unsubscribed` look like from outside.
 */
describe('reputation guard', () => {
  let sink: SmtpSink;
  let env: TestEnv;
  let api: TestApi;
  let port: number;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    sink = await SmtpSink.start();
    env = await TestEnv.create({
      SMTP_URL: sink.url,
      ALLOW_UNVERIFIED_FROM: '1',
      PUBLIC_URL: 'https://herald.acme.test',
      BOUNCE_DOMAIN,
      INBOUND_SMTP_PORT: '0',
      INBOUND_SMTP_HOST: '127.0.0.1',
      RATE_LIMIT: '100000',
      RATE_LIMIT_SEND: '100000',
      WEBHOOK_ALLOW_PRIVATE: '1',
      RATE_GUARD_MIN_DELIVERED: String(MIN_DELIVERED),
    });
    api = await TestApi.start(env);
    port = api.app.get(InboundSmtpServer).port!;
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    await env?.dispose();
    await sink?.close();
    for (const receiver of receivers) await receiver.stop();
  });

  /** A tenant of its own (its audience is all its subscribers) with a webhook endpoint. */
  async function tenantWithHooks(name: string) {
    const tenant = await api.tenant(name);
    const receiver = await new WebhookReceiver().start();
    receivers.push(receiver);
    const created = await request(api.server)
      .post('/v1/webhooks')
      .set('Authorization', tenant.auth)
      .send({ url: receiver.url, events: ['campaign.paused', 'subscriber.unsubscribed'] })
      .expect(201);
    receiver.secret = created.body.secret;
    const call = (method: 'get' | 'post' | 'patch', path: string, body?: object) => {
      const pending = request(api.server)[method](path).set('Authorization', tenant.auth);
      return body ? pending.send(body) : pending;
    };
    return { ...tenant, receiver, call };
  }

  type Tenant = Awaited<ReturnType<typeof tenantWithHooks>>;

  async function startCampaign(tenant: Tenant, name: string, ratePerMinute?: number) {
    const created = await tenant
      .call('post', '/v1/campaigns', {
        name,
        subject: `${name} for {{first_name}}`,
        from: 'Acme <news@acme.test>',
        html: '<p>Hello</p><a href="{{unsubscribe_url}}">Unsubscribe</a>',
        text: 'Hello {{unsubscribe_url}}',
        ...(ratePerMinute ? { rate_per_minute: ratePerMinute } : {}),
      })
      .expect(201);
    await tenant.call('post', `/v1/campaigns/${created.body.id}/send`, {}).expect(202);
    return created.body.id as string;
  }

  const statsOf = async (tenant: Tenant, id: string) =>
    (await tenant.call('get', `/v1/campaigns/${id}/stats`).expect(200)).body as Record<
      string,
      number | string
    >;

  async function waitUntilPaused(tenant: Tenant, id: string) {
    return waitFor(
      async () => {
        const campaign = await tenant.call('get', `/v1/campaigns/${id}`).expect(200);
        const body = campaign.body as { status: string; paused_reason: string | null };
        return body.status === 'paused' ? body : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100, message: `campaign ${id} never paused` },
    );
  }

  describe('a list that bounces one recipient in ten', () => {
    const domain = 'stale-list.test';
    const AUDIENCE = 400;
    let tenant: Tenant;
    let id: string;
    let refusing = true;

    beforeAll(async () => {
      tenant = await tenantWithHooks('Bouncing');
      await api.make.subscribers(tenant.accountId, AUDIENCE, { domain });
      sink.verdict = (message) => {
        const n = /^reader(\d+)@/.exec(message.to[0]);
        return refusing && message.to[0].endsWith(`@${domain}`) && n && Number(n[1]) % 10 === 0
          ? { code: 550, message: '5.1.1 no such user' }
          : undefined;
      };
      // A steady pace, so the send is still going when the guard looks.
      id = await startCampaign(tenant, 'Stale list', 3000);
    }, 60_000);

    it('pauses itself with bounce_rate before the list is through', async () => {
      const paused = await waitUntilPaused(tenant, id);
      expect(paused.paused_reason).toBe('bounce_rate');
      // What was handed to the relay when it paused is recorded; nothing more goes out.
      const settled = await waitFor(async () => {
        const before = await statsOf(tenant, id);
        const after = await statsOf(tenant, id);
        return before.sent === after.sent && before.outstanding === after.outstanding
          ? after
          : undefined;
      });
      expect(settled.delivered as number).toBeGreaterThanOrEqual(MIN_DELIVERED);
      expect(settled.hard_bounces as number).toBeGreaterThan(0.05 * (settled.delivered as number));
      expect(settled.sent as number).toBeLessThan(AUDIENCE);
      const sentToList = sink.messages.filter((m) => m.to[0].endsWith(`@${domain}`)).length;
      expect(sentToList).toBeLessThan(AUDIENCE);
    });

    it('publishes campaign.paused with the reason', async () => {
      const [event] = await waitFor(() => {
        const events = tenant.receiver.events('campaign.paused');
        return events.length > 0 ? events : undefined;
      });
      expect(event.data).toEqual({
        id,
        name: 'Stale list',
        status: 'paused',
        paused_reason: 'bounce_rate',
      });
    });

    it('resumes once the list is clean and finishes', async () => {
      refusing = false;
      const resumed = await tenant.call('post', `/v1/campaigns/${id}/resume`).expect(200);
      expect(resumed.body).toMatchObject({ status: 'sending', paused_reason: null });
      const stats = await waitUntilSent(api.server, tenant.auth, id);
      expect(stats.outstanding).toBe(0);
      expect((stats.delivered as number) + (stats.failed as number)).toBe(AUDIENCE);
      expect(tenant.receiver.events('campaign.paused')).toHaveLength(1);
    });
  });

  describe('a list whose recipients complain', () => {
    const domain = 'complainers.test';
    let tenant: Tenant;
    let id: string;
    let mailFromsBefore: number;
    let acceptedBefore: number;

    beforeAll(async () => {
      tenant = await tenantWithHooks('Complaints');
      await api.make.subscribers(tenant.accountId, 300, { domain });
      sink.verdict = () => undefined;
      mailFromsBefore = sink.mailFroms;
      acceptedBefore = sink.messages.length;
      // The relay stops taking mail past this many, so the send is still going when the
      // complaints come back.
      sink.holdAfter = acceptedBefore + 150;
      id = await startCampaign(tenant, 'Complained about');
    }, 60_000);
    afterAll(() => {
      sink.holdAfter = Infinity;
      sink.release();
    });

    it('pauses itself with complaint_rate once complaints pass the limit', async () => {
      // Held: every transaction begun either accepted or hanging at MAIL FROM (transactions
      // that began before the limit was reached finish past it), and every accepted message
      // recorded. Nothing is in flight, so nothing more is accepted until the hold ends.
      const delivered = await waitFor(
        async () => {
          const begun = sink.mailFroms - mailFromsBefore;
          const settledAtRelay = begun === sink.messages.length - acceptedBefore + sink.held;
          if (sink.held === 0 || !settledAtRelay) return undefined;
          const accepted = sink.messages.filter((m) => m.to[0].endsWith(`@${domain}`)).length;
          const stats = await statsOf(tenant, id);
          return stats.delivered === accepted ? accepted : undefined;
        },
        { timeoutMs: 60_000 },
      );
      expect(delivered).toBeGreaterThanOrEqual(MIN_DELIVERED);
      const received = sink.messages.filter((m) => m.to[0].endsWith(`@${domain}`));
      // 1 complaint in about 150 delivered is about 0.67 %, past the 0.3 % limit.
      await deliver(
        port,
        { from: 'fbl@isp.example.net', to: [`fbl@${BOUNCE_DOMAIN}`] },
        abuseReport({ to: `fbl@${BOUNCE_DOMAIN}`, originalHeaders: headerBlock(received[0].raw) }),
      );
      const paused = await waitUntilPaused(tenant, id);
      expect(paused.paused_reason).toBe('complaint_rate');
      const [event] = await waitFor(() => {
        const events = tenant.receiver.events('campaign.paused');
        return events.length > 0 ? events : undefined;
      });
      expect(event.data).toMatchObject({ id, status: 'paused', paused_reason: 'complaint_rate' });
      // The held transactions are let go: the halted runs abandon them before their end.
      sink.holdAfter = Infinity;
      sink.release();
      const settled = await waitFor(async () => {
        const stats = await statsOf(tenant, id);
        return sink.held === 0 ? stats : undefined;
      });
      expect(settled.delivered).toBe(delivered);
      expect(settled.complaints).toBe(1);
    });
  });

  it('a person pausing leaves paused_reason null and says so in campaign.paused', async () => {
    const tenant = await tenantWithHooks('Person');
    await api.make.subscribers(tenant.accountId, 50, { domain: 'people.test' });
    sink.verdict = () => undefined;
    const id = await startCampaign(tenant, 'Paused by hand', 60);
    const paused = await tenant.call('post', `/v1/campaigns/${id}/pause`).expect(200);
    expect(paused.body).toMatchObject({ status: 'paused', paused_reason: null });
    const [event] = await waitFor(() => {
      const events = tenant.receiver.events('campaign.paused');
      return events.length > 0 ? events : undefined;
    });
    expect(event.data).toEqual({
      id,
      name: 'Paused by hand',
      status: 'paused',
      paused_reason: null,
    });
    await tenant.call('post', `/v1/campaigns/${id}/cancel`).expect(200);
  });

  it('counts a pending subscriber in skipped_other, not skipped_unsubscribed', async () => {
    const tenant = await tenantWithHooks('Pending');
    sink.verdict = () => undefined;
    for (const [email, status] of [
      ['yes@pending.test', 'subscribed'],
      ['maybe@pending.test', 'pending'],
      ['no@pending.test', 'unsubscribed'],
    ]) {
      await tenant.call('post', '/v1/subscribers', { email, status }).expect(201);
    }
    const id = await startCampaign(tenant, 'Double opt-in');
    const stats = await waitUntilSent(api.server, tenant.auth, id);
    expect(stats).toMatchObject({
      recipients: 1,
      delivered: 1,
      skipped_other: 1,
      skipped_unsubscribed: 1,
    });
  });

  it('a PATCH to unsubscribed publishes subscriber.unsubscribed, once', async () => {
    const tenant = await tenantWithHooks('Unsubscribing');
    const created = await tenant
      .call('post', '/v1/subscribers', { email: 'leaving@patch.test' })
      .expect(201);
    const path = `/v1/subscribers/${created.body.id}`;
    await tenant.call('patch', path, { status: 'unsubscribed' }).expect(200);
    // Unsubscribed already: no change to unsubscribed, no second event.
    await tenant.call('patch', path, { status: 'unsubscribed', first_name: 'Lee' }).expect(200);
    const [event] = await waitFor(() => {
      const events = tenant.receiver.events('subscriber.unsubscribed');
      return events.length > 0 ? events : undefined;
    });
    expect(event.data).toMatchObject({ id: created.body.id, status: 'unsubscribed' });
    // The second PATCH's subscriber.updated would have come by now if it had been published
    // with one; the endpoint only takes the two event types, so look at deliveries instead.
    const hooks = await tenant.call('get', '/v1/webhooks').expect(200);
    const webhookId = (hooks.body as { data: { id: string }[] }).data[0].id;
    const deliveries = await waitFor(async () => {
      const list = await tenant.call('get', `/v1/webhooks/${webhookId}/deliveries`).expect(200);
      const data = (list.body as { data: { type: string }[] }).data;
      return data.some((d) => d.type === 'subscriber.unsubscribed') ? data : undefined;
    });
    expect(deliveries.filter((d) => d.type === 'subscriber.unsubscribed')).toHaveLength(1);
  });
  it('a batch upsert and an import to unsubscribed publish subscriber.unsubscribed, once each', async () => {
    const tenant = await tenantWithHooks('Bulk unsubscribes');
    const ids: Record<string, string> = {};
    for (const name of ['batch', 'again', 'imported', 'kept']) {
      const email = `${name}@bulk.test`;
      ids[name] = (await tenant.call('post', '/v1/subscribers', { email }).expect(201)).body.id;
    }
    const batch = await tenant
      .call('post', '/v1/subscribers/batch', {
        subscribers: [
          { email: 'batch@bulk.test', status: 'unsubscribed' },
          // Unsubscribed, then back in the same batch: no change to unsubscribed is left.
          { email: 'again@bulk.test', status: 'unsubscribed' },
          { email: 'again@bulk.test', status: 'subscribed' },
          // Created unsubscribed: a new subscriber, not a change (as a single create).
          { email: 'new@bulk.test', status: 'unsubscribed' },
        ],
      })
      .expect(200);
    expect((batch.body as { results: { status: string }[] }).results.map((r) => r.status)).toEqual([
      'updated',
      'updated',
      'updated',
      'created',
    ]);
    // The same again: unsubscribed already, nothing to announce.
    await tenant
      .call('post', '/v1/subscribers/batch', {
        subscribers: [{ email: 'batch@bulk.test', status: 'unsubscribed', first_name: 'B' }],
      })
      .expect(200);
    const csv = ['email,status', 'imported@bulk.test,unsubscribed', 'kept@bulk.test,'].join('\n');
    const accepted = await request(api.server)
      .post('/v1/imports')
      .set('Authorization', tenant.auth)
      .attach('file', Buffer.from(csv), { filename: 'list.csv', contentType: 'text/csv' })
      .expect(202);
    await waitFor(
      async () => {
        const progress = await tenant.call('get', `/v1/imports/${accepted.body.id}`).expect(200);
        return (progress.body as { status: string }).status === 'done';
      },
      { timeoutMs: 60_000, message: 'the import never finished' },
    );
    // The deliveries are recorded by the dispatcher after the receiver answers, so wait for them
    // rather than reading the list once; a duplicate, or one for `again`, would be a third.
    const hooks = await tenant.call('get', '/v1/webhooks').expect(200);
    const webhookId = (hooks.body as { data: { id: string }[] }).data[0].id;
    const deliveries = await waitFor(async () => {
      const list = await tenant
        .call('get', `/v1/webhooks/${webhookId}/deliveries?limit=100`)
        .expect(200);
      const data = (list.body as { data: { type: string }[] }).data;
      const unsubscribed = data.filter((d) => d.type === 'subscriber.unsubscribed');
      return unsubscribed.length >= 2 ? unsubscribed : undefined;
    });
    expect(deliveries).toHaveLength(2);
    const announced = await waitFor(() => {
      const events = tenant.receiver.events('subscriber.unsubscribed');
      return events.length >= 2 ? events : undefined;
    });
    expect(announced).toHaveLength(2);
    expect(
      announced.map((event) => (event.data as { id: string; status: string }).id).sort(),
    ).toEqual([ids.batch, ids.imported].sort());
    for (const event of announced) expect(event.data).toMatchObject({ status: 'unsubscribed' });
  });
});
