import request from 'supertest';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { FeedbackService } from '../../src/feedback/feedback.service';
import { waitUntilSent } from '../support/campaign-fixtures';
import { Tenant } from '../support/factories';
import { SmtpSink } from '../support/smtp-sink';
import { TestApi, TestEnv } from '../support/test-env';
import { BROWSER, linksOf } from '../support/tracking-links';
import { waitFor } from '../support/wait-for';
import { WebhookReceiver } from '../support/webhook-receiver';
import { WEBHOOK_EVENT_TYPES } from '../../src/webhooks/webhook-event-types';

const PUBLIC_URL = 'https://herald.acme.test';

interface Delivery {
  id: string;
  event_id: string;
  type: string;
  status: string;
  attempts: number;
  response_status: number | null;
  latency_ms: number | null;
  error: string | null;
  next_attempt_at: string | null;
}

/**
 * Outbound webhooks end to end: a receiver on loopback verifies every delivery with the
 * `standardwebhooks` package, gets every kind of event from the real paths that cause them,
 * survives being down (the same webhook-id arrives on the retry), and rejects a tampered
 * payload; without WEBHOOK_ALLOW_PRIVATE a loopback endpoint is refused on save and at
 * delivery time.
 */
describe('outbound webhooks', () => {
  let sink: SmtpSink;
  let env: TestEnv;
  let api: TestApi;
  let tenant: Tenant;
  let receiver: WebhookReceiver;
  let webhookId: string;

  beforeAll(async () => {
    sink = await SmtpSink.start();
    sink.verdict = (message) =>
      message.to[0].endsWith('@bounce.example')
        ? { code: 550, message: 'no such user' }
        : undefined;
    env = await TestEnv.create({
      SMTP_URL: sink.url,
      ALLOW_UNVERIFIED_FROM: '1',
      PUBLIC_URL,
      RATE_LIMIT: '100000',
      WEBHOOK_ALLOW_PRIVATE: '1',
    });
    api = await TestApi.start(env);
    tenant = await api.tenant();
    receiver = await new WebhookReceiver().start();
    const created = await request(api.server)
      .post('/v1/webhooks')
      .set('Authorization', tenant.auth)
      .send({ url: receiver.url, events: WEBHOOK_EVENT_TYPES, description: 'everything' })
      .expect(201);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    receiver.secret = created.body.secret;
    webhookId = created.body.id;
  }, 60_000);

  afterAll(async () => {
    await receiver?.stop();
    await api?.close();
    await env?.dispose();
    await sink?.close();
  });

  const call = (method: 'get' | 'post' | 'patch' | 'delete', path: string) =>
    request(api.server)[method](path).set('Authorization', tenant.auth);
  const deliveryLog = async (id = webhookId, api_ = api, auth = tenant.auth) =>
    (
      await request(api_.server)
        .get(`/v1/webhooks/${id}/deliveries`)
        .set('Authorization', auth)
        .expect(200)
    ).body.data as Delivery[];
  const arrived = (type: string, count = 1) =>
    waitFor(() => receiver.events(type).length >= count && receiver.events(type), {
      message: () => `${type}: got ${receiver.received.map((r) => r.event?.type).join(', ')}`,
    });

  it('shows the secret once and the endpoint without it after', async () => {
    const shown = (await call('get', `/v1/webhooks/${webhookId}`).expect(200)).body;
    expect(shown).toMatchObject({
      id: webhookId,
      url: receiver.url,
      enabled: true,
      disabled_reason: null,
    });
    expect(shown).not.toHaveProperty('secret');
    expect((await call('get', '/v1/webhooks').expect(200)).body.data).toHaveLength(1);
    await call('post', '/v1/webhooks')
      .send({ url: 'ftp://example.com/x', events: ['email.sent'] })
      .expect(422);
    await call('post', '/v1/webhooks')
      .send({ url: receiver.url, events: ['email.nope'] })
      .expect(422);
    await call('post', '/v1/webhooks').send({ url: receiver.url, events: [] }).expect(422);
  });

  it('delivers every kind of event, signed, from the places they happen', async () => {
    const ada = (
      await call('post', '/v1/subscribers')
        .send({ email: 'ada@example.com', first_name: 'Ada' })
        .expect(201)
    ).body;
    await call('post', '/v1/subscribers').send({ email: 'bob@example.com' }).expect(201);
    await call('post', '/v1/subscribers').send({ email: 'dee@bounce.example' }).expect(201);
    await call('patch', `/v1/subscribers/${ada.id}`).send({ last_name: 'Lovelace' }).expect(200);

    const campaign = (
      await call('post', '/v1/campaigns')
        .send({
          name: 'Launch',
          subject: 'Launch',
          from: 'news@acme.test',
          html: '<p><a href="https://acme.example/launch">Launch</a></p>',
        })
        .expect(201)
    ).body;
    await call('post', `/v1/campaigns/${campaign.id}/send`).expect(202);
    await waitUntilSent(api.server, tenant.auth, campaign.id);
    // People read later than the machines that fetch within seconds of delivery.
    await env.sql(
      `UPDATE campaign_recipients SET sent_at = sent_at - interval '10 minutes' WHERE campaign_id = $1`,
      [campaign.id],
    );
    const mail = sink.messages.find((m) => m.to[0] === 'ada@example.com')!;
    const links = linksOf(mail, PUBLIC_URL);
    await request(api.server).get(links.pixel).set('User-Agent', BROWSER).expect(200);
    await request(api.server).get(links.clicks[0].path).set('User-Agent', BROWSER).expect(302);
    // A complaint as the feedback loop records it (its inbound paths have their own tests).
    await api.app.get(FeedbackService).apply({
      source: 'arf',
      eventKey: 'complaint-1',
      kind: 'complaint',
      message: { kind: 'campaign', campaignId: campaign.id, subscriberId: ada.id },
    });
    const bob = linksOf(
      sink.messages.find((m) => m.to[0] === 'bob@example.com')!,
      PUBLIC_URL,
    );
    await request(api.server)
      .post(bob.unsubscribe)
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send('List-Unsubscribe=One-Click')
      .expect(200);
    await call('post', '/v1/transactional/send')
      .send({ to: 'zed@example.com', from: 'shop@acme.test', subject: 'Receipt', text: 'Thanks' })
      .expect(202);
    // A person pausing a campaign mid-send: the relay holds every new message, so it is still
    // sending when the pause arrives. Its one sendable recipient is new: everyone above has
    // complained, unsubscribed or bounced, and a campaign with no one to send to is over
    // before a pause can reach it.
    await call('post', '/v1/subscribers').send({ email: 'hal@example.com' }).expect(201);
    sink.holdAfter = sink.messages.length;
    const held = (
      await call('post', '/v1/campaigns')
        .send({ name: 'Held', subject: 'Held', from: 'news@acme.test', text: 'Wait' })
        .expect(201)
    ).body;
    await call('post', `/v1/campaigns/${held.id}/send`).expect(202);
    await call('post', `/v1/campaigns/${held.id}/pause`).expect(200);
    sink.release();
    await call('post', '/v1/erasures').send({ email: 'dee@bounce.example' }).expect(200);

    // Two automation runs enrolled by hand: one walks past its last step, an exit step ends
    // the other. (Ada complained above, which ends her runs: they are Cy's.)
    const cy = (await call('post', '/v1/subscribers').send({ email: 'cy@example.com' }).expect(201))
      .body;
    const ends: Record<string, object[]> = {
      completed: [{ id: 'pause', type: 'wait', seconds: 1 }],
      exited: [{ id: 'out', type: 'exit' }],
    };
    for (const [end, steps] of Object.entries(ends)) {
      const flow = (
        await call('post', '/v1/automations')
          .send({ name: `Runs that end ${end}`, trigger: { type: 'manual' }, steps })
          .expect(201)
      ).body;
      await call('post', `/v1/automations/${flow.id}/activate`).expect(200);
      await call('post', `/v1/automations/${flow.id}/runs`)
        .send({ subscriber_id: cy.id })
        .expect(201);
    }
    for (const type of WEBHOOK_EVENT_TYPES) await arrived(type);
    // Every request verified, and none carried an erased person's address.
    expect(receiver.received.every((r) => r.event !== undefined)).toBe(true);

    // Two campaign messages delivered (the third bounced) and the receipt, which may come last.
    const delivered = (await arrived('email.delivered', 3)).map((e) => e.data);
    expect(delivered).toEqual(
      expect.arrayContaining([
        {
          message_id: mail.headers['message-id'],
          email: 'ada@example.com',
          subscriber_id: ada.id,
          campaign_id: campaign.id,
        },
        expect.objectContaining({
          email: 'zed@example.com',
          campaign_id: null,
          subscriber_id: null,
        }),
      ]),
    );
    // Three campaign messages and the receipt (the paused campaign's own may follow them).
    const sentBeforePause = () =>
      receiver.events('email.sent').filter((e) => e.data.campaign_id !== held.id);
    await waitFor(() => sentBeforePause().length >= 4);
    expect(sentBeforePause()).toHaveLength(4);
    expect(receiver.events('email.bounced')[0].data).toMatchObject({
      email: 'dee@bounce.example',
      reason: 'hard_bounce',
      status_code: '550',
    });
    expect(receiver.events('email.clicked')[0].data).toMatchObject({
      url: 'https://acme.example/launch',
      machine: false,
      subscriber_id: ada.id,
    });
    expect(receiver.events('email.complained')[0].data).toMatchObject({
      reason: 'complaint',
      email: 'ada@example.com',
    });
    expect(receiver.events('subscriber.unsubscribed')[0].data).toMatchObject({
      email: 'bob@example.com',
      status: 'unsubscribed',
    });
    expect(receiver.events('subscriber.updated')[0].data).toMatchObject({ last_name: 'Lovelace' });
    expect(receiver.events('campaign.sent')[0].data).toEqual({
      id: campaign.id,
      name: 'Launch',
      status: 'sent',
    });
    const erased = receiver.events('subscriber.erased')[0];
    expect(erased.data).toEqual({
      email_hash: expect.any(String),
      subscriber_id: expect.any(String),
    });
    expect(JSON.stringify(erased)).not.toContain('dee@');

    // Erasure scrubbed what was stored about the person.
    const stored = await env.sql<{ payload: string | null }>(
      `SELECT payload FROM webhook_deliveries WHERE payload LIKE '%dee@bounce.example%'`,
    );
    expect(stored).toEqual([]);
  }, 60_000);

  it('announces the subscribers a batch write created or changed, and only those', async () => {
    await call('post', '/v1/subscribers').send({ email: 'eve@example.com' }).expect(201);
    const { results } = (
      await call('post', '/v1/subscribers/batch')
        .send({
          subscribers: [
            { email: 'fay@example.com', first_name: 'Fay' },
            { email: 'eve@example.com', first_name: 'Eve' },
            { email: 'gus@example.com' },
            { email: 'not an email' },
            { email: 'gus@example.com', city: 'Oslo' },
          ],
        })
        .expect(200)
    ).body as { results: { status: string; id?: string }[] };
    expect(results.map((r) => r.status)).toEqual([
      'created',
      'updated',
      'created',
      'failed',
      'updated',
    ]);
    const emailsOf = (type: string) =>
      receiver.events(type).map((event) => (event.data as { email: string }).email);
    await waitFor(() => emailsOf('subscriber.created').includes('gus@example.com'));
    await waitFor(() => emailsOf('subscriber.updated').includes('eve@example.com'));
    expect(emailsOf('subscriber.created')).toEqual(
      expect.arrayContaining(['fay@example.com', 'gus@example.com']),
    );
    const eve = receiver
      .events('subscriber.updated')
      .find((event) => (event.data as { email: string }).email === 'eve@example.com')!;
    expect(eve.data).toMatchObject({ id: results[1].id, first_name: 'Eve' });
    // One event per subscriber: gus, created then changed by the same write, is one creation,
    // with the write's final state.
    expect(emailsOf('subscriber.updated').filter((e) => e === 'eve@example.com')).toHaveLength(1);
    expect(emailsOf('subscriber.updated')).not.toContain('gus@example.com');
    const gus = receiver
      .events('subscriber.created')
      .filter((event) => (event.data as { email: string }).email === 'gus@example.com');
    expect(gus).toHaveLength(1);
    expect(gus[0].data).toMatchObject({ city: 'Oslo' });
  });

  it('rejects a tampered payload when verifying', () => {
    const genuine = receiver.received.find((r) => r.event?.type === 'email.delivered')!;
    const headers = {
      'webhook-id': genuine.id,
      'webhook-timestamp': genuine.timestamp,
      'webhook-signature': genuine.signature,
    };
    expect(() => new Webhook(receiver.secret).verify(genuine.body, headers)).not.toThrow();
    const tampered = genuine.body.replace('ada@example.com', 'eve@example.com');
    expect(tampered).not.toBe(genuine.body);
    expect(() => new Webhook(receiver.secret).verify(tampered, headers)).toThrow(
      WebhookVerificationError,
    );
  });

  it('retries while the receiver is down; the same webhook-id arrives once it is back', async () => {
    await receiver.stop();
    const before = receiver.received.length;
    const created = (
      await call('post', '/v1/subscribers').send({ email: 'late@example.com' }).expect(201)
    ).body;
    // The first attempt fails (connection refused) and the delivery log says so.
    const failed = await waitFor(async () => {
      const entry = (await deliveryLog()).find(
        (d) => d.type === 'subscriber.created' && d.attempts >= 1,
      );
      return entry?.status === 'pending' && entry.error ? entry : undefined;
    });
    expect(failed.next_attempt_at).not.toBeNull();
    expect(failed.response_status).toBeNull();
    await receiver.start();
    const retried = await waitFor(
      () =>
        receiver.received
          .slice(before)
          .find((r) => r.event?.type === 'subscriber.created' && r.event.data.id === created.id),
      { timeoutMs: 20_000 },
    );
    expect(retried.id).toBe(failed.event_id);
    const done = await waitFor(async () => {
      const entry = (await deliveryLog()).find((d) => d.id === failed.id);
      return entry?.status === 'succeeded' ? entry : undefined;
    });
    expect(done).toMatchObject({ attempts: 2, response_status: 200, next_attempt_at: null });
    expect(done.latency_ms).toEqual(expect.any(Number));

    // A manual retry: a new attempt at once, with the same webhook-id.
    const count = receiver.received.filter((r) => r.id === failed.event_id).length;
    await call('post', `/v1/webhooks/${webhookId}/deliveries/${failed.id}/retry`).expect(202);
    await waitFor(() => receiver.received.filter((r) => r.id === failed.event_id).length > count);
    await waitFor(async () => {
      const entry = (await deliveryLog()).find((d) => d.id === failed.id);
      return entry?.attempts === 3 && entry.status === 'succeeded';
    });
  }, 40_000);

  it('disables an endpoint that has failed for 5 days, and says why', async () => {
    await env.sql(
      `UPDATE webhook_endpoints SET failing_since = now() - interval '6 days' WHERE id = $1`,
      [webhookId],
    );
    receiver.status = 500;
    await call('post', '/v1/subscribers').send({ email: 'gone@example.com' }).expect(201);
    const endpoint = await waitFor(async () => {
      const shown = (await call('get', `/v1/webhooks/${webhookId}`).expect(200)).body as {
        enabled: boolean;
        disabled_reason: string | null;
      };
      return shown.enabled ? undefined : shown;
    });
    expect(endpoint.disabled_reason).toMatch(/failed since .*HTTP 500/);
    receiver.status = 200;
    const enabled = (
      await call('patch', `/v1/webhooks/${webhookId}`).send({ enabled: true }).expect(200)
    ).body;
    expect(enabled).toMatchObject({ enabled: true, disabled_reason: null });
  });

  describe('without WEBHOOK_ALLOW_PRIVATE', () => {
    let strictEnv: TestEnv;
    let strict: TestApi;
    let owner: Tenant;

    beforeAll(async () => {
      strictEnv = await TestEnv.create({ RATE_LIMIT: '100000' });
      strict = await TestApi.start(strictEnv);
      owner = await strict.tenant();
    }, 60_000);
    afterAll(async () => {
      await strict?.close();
      await strictEnv?.dispose();
    });

    it('refuses a loopback endpoint when it is saved', async () => {
      for (const url of [
        receiver.url,
        'http://localhost:9/x',
        'http://[::1]/x',
        'http://169.254.169.254/',
      ]) {
        const refused = await request(strict.server)
          .post('/v1/webhooks')
          .set('Authorization', owner.auth)
          .send({ url, events: ['subscriber.created'] })
          .expect(422);
        expect(refused.body.error.details[0]).toMatchObject({
          field: 'url',
          code: 'private_address',
        });
      }
    });

    it('refuses to connect to a private address at delivery time', async () => {
      // As if the name had pointed elsewhere when it was saved: the check at connect time holds.
      const created = await request(strict.server)
        .post('/v1/webhooks')
        .set('Authorization', owner.auth)
        .send({ url: 'https://hooks.example.com/x', events: ['subscriber.created'] })
        .expect(201);
      await strictEnv.sql(`UPDATE webhook_endpoints SET url = $1 WHERE id = $2`, [
        receiver.url,
        created.body.id,
      ]);
      const before = receiver.received.length;
      await request(strict.server)
        .post('/v1/subscribers')
        .set('Authorization', owner.auth)
        .send({ email: 'ssrf@example.com' })
        .expect(201);
      const attempt = await waitFor(
        async () => {
          const log = await deliveryLog(created.body.id as string, strict, owner.auth);
          return log.find((d) => d.error !== null);
        },
        { timeoutMs: 20_000 },
      );
      expect(attempt.error).toMatch(/private or reserved address/);
      expect(receiver.received.length).toBe(before);
    }, 30_000);
  });
});
