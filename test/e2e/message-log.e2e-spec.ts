import request from 'supertest';
import { MessageRetention } from '../../src/messages/message-retention';
import { waitUntilSent } from '../support/campaign-fixtures';
import { Tenant } from '../support/factories';
import { SmtpSink } from '../support/smtp-sink';
import { TestApi, TestEnv } from '../support/test-env';
import { BROWSER, linksOf } from '../support/tracking-links';
import { waitFor } from '../support/wait-for';

const PUBLIC_URL = 'https://herald.acme.test';
const SHOP = 'https://shop.acme.example/spring';
const POSTMARK = { user: 'postmark-hook', password: 'postmark-secret-123' };

interface Event {
  type: string;
  at: string;
  smtp_code?: number;
  reason?: string;
  url?: string;
  machine?: boolean;
}
interface Message {
  id: string;
  message_id: string | null;
  source: string;
  campaign_id: string | null;
  subscriber_id: string | null;
  recipient: string | null;
  from: string;
  subject: string | null;
  status: string;
  created_at: string;
  events: Event[];
}

/**
 * The message log end to end: a campaign, transactional mail and test sends go to an SMTP
 * sink (one address refused for good, one refused once for now); opens, clicks, an
 * unsubscribe, a complaint and a bounce report come back; every message and event is then
 * read through GET /v1/messages.
 */
describe('message log', () => {
  let sink: SmtpSink;
  let env: TestEnv;
  let api: TestApi;
  let tenant: Tenant;
  let campaignId: string;
  const refusedOnce = new Set<string>();
  const people = ['ada@example.com', 'bob@example.com', 'cy@example.com', 'dee@bounce.example'];

  beforeAll(async () => {
    sink = await SmtpSink.start();
    sink.verdict = (message) => {
      const to = message.to[0];
      if (to.endsWith('@bounce.example')) return { code: 550, message: '5.1.1 no such user' };
      if (to.startsWith('later@') && !refusedOnce.has(to)) {
        refusedOnce.add(to);
        return { code: 451, message: '4.7.1 greylisted, try again' };
      }
      return undefined;
    };
    env = await TestEnv.create({
      SMTP_URL: sink.url,
      ALLOW_UNVERIFIED_FROM: '1',
      PUBLIC_URL,
      RATE_LIMIT: '100000',
      RATE_LIMIT_SEND: '100000',
      SMTP_RETRY_FIRST_SECONDS: '1',
      POSTMARK_WEBHOOK_USER: POSTMARK.user,
      POSTMARK_WEBHOOK_PASSWORD: POSTMARK.password,
    });
    api = await TestApi.start(env);
    tenant = await api.tenant();
    for (const email of people) {
      await request(api.server)
        .post('/v1/subscribers')
        .set('Authorization', tenant.auth)
        .send({ email })
        .expect(201);
    }
    const created = await request(api.server)
      .post('/v1/campaigns')
      .set('Authorization', tenant.auth)
      .send({
        name: 'Spring',
        subject: 'Spring is here',
        from: 'news@acme.test',
        html: `<p>Hi</p><p><a href="${SHOP}">Shop</a></p>`,
      })
      .expect(201);
    campaignId = created.body.id;
    await request(api.server)
      .post(`/v1/campaigns/${campaignId}/send`)
      .set('Authorization', tenant.auth)
      .expect(202);
    await waitUntilSent(api.server, tenant.auth, campaignId);
  }, 60_000);

  afterAll(async () => {
    await api?.close();
    await env?.dispose();
    await sink?.close();
  });

  const get = (path: string, auth = tenant.auth) =>
    request(api.server).get(path).set('Authorization', auth);
  const list = async (query: string): Promise<Message[]> =>
    (await get(`/v1/messages?limit=100&${query}`).expect(200)).body.data as Message[];
  const one = async (id: string): Promise<Message> =>
    (await get(`/v1/messages/${id}`).expect(200)).body as Message;
  const campaignMessageTo = async (email: string) => {
    const [summary] = await list(
      `campaign_id=${campaignId}&source=campaign&recipient=${encodeURIComponent(email)}`,
    );
    if (!summary) throw new Error(`no campaign message to ${email}`);
    return one(summary.id);
  };
  const received = (email: string) => {
    const message = sink.messages.find((m) => m.to[0] === email && !m.headers['x-herald-test']);
    if (!message) throw new Error(`nothing received for ${email}`);
    return message;
  };
  const types = (message: Message) => message.events.map((event) => event.type);
  const transactional = async (to: string) => {
    const sent = await request(api.server)
      .post('/v1/transactional/send')
      .set('Authorization', tenant.auth)
      .send({ to, from: 'app@acme.test', subject: `Reset for ${to}`, text: 'Your code: 1234' })
      .expect(202);
    return sent.body.id as string;
  };
  const settled = (id: string, status: string) =>
    waitFor(
      async () => {
        const message = await one(id);
        return message.status === status ? message : undefined;
      },
      { message: `message ${id} never became ${status}` },
    );

  it('logs every campaign message with its outcome and SMTP reply', async () => {
    const messages = await list(`campaign_id=${campaignId}`);
    expect(messages).toHaveLength(4);
    expect(new Set(messages.map((m) => m.recipient))).toEqual(new Set(people));
    for (const message of messages) {
      expect(message).toMatchObject({
        source: 'campaign',
        campaign_id: campaignId,
        from: 'news@acme.test',
        subject: 'Spring is here',
      });
      expect(message).not.toHaveProperty('events');
    }

    const ada = await campaignMessageTo('ada@example.com');
    expect(ada.status).toBe('delivered');
    expect(ada.message_id).toBe(received('ada@example.com').headers['message-id']);
    expect(types(ada)).toEqual(['queued', 'sent', 'delivered']);
    expect(ada.events[2]).toMatchObject({ smtp_code: 250, reason: expect.stringMatching(/^250/) });

    const dee = await campaignMessageTo('dee@bounce.example');
    expect(dee.status).toBe('bounced');
    expect(types(dee)).toEqual(['queued', 'sent', 'bounced']);
    expect(dee.events[2]).toMatchObject({ smtp_code: 550 });
    expect(dee.events[2].reason).toContain('no such user');
  });

  it('appends opens, clicks, an unsubscribe, a complaint and a later bounce', async () => {
    const adaLinks = linksOf(received('ada@example.com'), PUBLIC_URL);
    await request(api.server).get(adaLinks.pixel).set('User-Agent', BROWSER).expect(200);
    const click = adaLinks.clicks.find((c) => c.target === SHOP)!;
    await request(api.server).get(click.path).set('User-Agent', BROWSER).expect(302);
    const bobLinks = linksOf(received('bob@example.com'), PUBLIC_URL);
    await request(api.server).post(bobLinks.unsubscribe).expect(200);
    const postmark = (body: object) =>
      request(api.server)
        .post('/webhooks/postmark')
        .auth(POSTMARK.user, POSTMARK.password)
        .send(body)
        .expect(200);
    await postmark({
      RecordType: 'SpamComplaint',
      ID: 1001,
      MessageID: 'pm-1',
      Email: 'ada@example.com',
    });
    await postmark({
      RecordType: 'Bounce',
      ID: 1002,
      Type: 'HardBounce',
      MessageID: 'pm-2',
      Email: 'cy@example.com',
    });

    const ada = await campaignMessageTo('ada@example.com');
    expect(types(ada)).toEqual(['queued', 'sent', 'delivered', 'opened', 'clicked', 'complained']);
    expect(ada.events[3]).toMatchObject({ machine: expect.any(Boolean) });
    expect(ada.events[4]).toMatchObject({ url: SHOP, machine: expect.any(Boolean) });
    expect(ada.status).toBe('complained');
    const bob = await campaignMessageTo('bob@example.com');
    expect(types(bob)).toEqual(['queued', 'sent', 'delivered', 'unsubscribed']);
    expect(bob.status).toBe('delivered');
    const cy = await campaignMessageTo('cy@example.com');
    expect(types(cy)).toEqual(['queued', 'sent', 'delivered', 'bounced']);
    expect(cy.status).toBe('bounced');
    // Oldest first.
    const times = ada.events.map((event) => Date.parse(event.at));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });

  it("logs a transactional send under its 202's id, a deferral and its retry", async () => {
    const id = await transactional('tx@example.com');
    const sent = await settled(id, 'delivered');
    expect(sent).toMatchObject({
      id,
      source: 'transactional',
      recipient: 'tx@example.com',
      from: 'app@acme.test',
      subject: 'Reset for tx@example.com',
      campaign_id: null,
    });
    expect(types(sent)).toEqual(['queued', 'sent', 'delivered']);
    expect(sent.message_id).toBe(
      sink.messages.find((m) => m.to[0] === 'tx@example.com')!.headers['message-id'],
    );

    const later = await transactional('later@example.com');
    const retried = await waitFor(
      async () => {
        const message = await one(later);
        return message.status === 'delivered' ? message : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(types(retried)).toEqual(['queued', 'deferred', 'sent', 'delivered']);
    expect(retried.events[1]).toMatchObject({ smtp_code: 451 });
    expect(retried.events[1].reason).toContain('greylisted');

    const refused = await transactional('eve@bounce.example');
    const bounced = await settled(refused, 'bounced');
    expect(types(bounced)).toEqual(['queued', 'sent', 'bounced']);
    expect(bounced.events[2]).toMatchObject({ smtp_code: 550 });
  });

  it('logs test sends, including one that failed', async () => {
    const response = await request(api.server)
      .post(`/v1/campaigns/${campaignId}/test`)
      .set('Authorization', tenant.auth)
      .send({ emails: ['qa@example.com', 'qa@bounce.example'] })
      .expect(200);
    expect(response.body).toBeDefined();
    const tests = await list('source=test');
    expect(tests).toHaveLength(2);
    const ok = await one(tests.find((m) => m.recipient === 'qa@example.com')!.id);
    expect(ok).toMatchObject({ status: 'delivered', campaign_id: campaignId });
    expect(ok.subject).toBe('[Test] Spring is here');
    expect(types(ok)).toEqual(['queued', 'sent', 'delivered']);
    const failed = await one(tests.find((m) => m.recipient === 'qa@bounce.example')!.id);
    expect(failed.status).toBe('failed');
    expect(types(failed)).toEqual(['queued', 'failed']);
    expect(failed.events[1].reason).toContain('no such user');
  });

  it('shows every event type and filters by recipient, status, source and time', async () => {
    const all = await list('');
    const seen = new Set<string>();
    for (const summary of all)
      for (const event of (await one(summary.id)).events) seen.add(event.type);
    expect([...seen].sort()).toEqual(
      [
        'queued',
        'sent',
        'delivered',
        'deferred',
        'bounced',
        'complained',
        'opened',
        'clicked',
        'unsubscribed',
        'failed',
      ].sort(),
    );

    const toAda = await list('recipient=ADA%40example.com');
    expect(toAda.map((m) => m.recipient)).toEqual(['ada@example.com']);
    const bounced = await list('status=bounced');
    expect(new Set(bounced.map((m) => m.recipient))).toEqual(
      new Set(['dee@bounce.example', 'cy@example.com', 'eve@bounce.example']),
    );
    const tx = await list('source=transactional');
    expect(tx.every((m) => m.source === 'transactional')).toBe(true);
    expect(tx).toHaveLength(3);
    // Newest first; since/until bound the creation time.
    const newest = all[0];
    expect(Date.parse(newest.created_at)).toBeGreaterThanOrEqual(
      Date.parse(all.at(-1)!.created_at),
    );
    const since = await list(`since=${encodeURIComponent(newest.created_at)}`);
    expect(since.map((m) => m.id)).toContain(newest.id);
    expect(since.length).toBeLessThan(all.length);
    const until = await list(`until=${encodeURIComponent(all.at(-1)!.created_at)}`);
    expect(until.map((m) => m.id)).not.toContain(newest.id);
    expect(await list('recipient=nobody%40example.com')).toEqual([]);
  });

  it.each([
    'status=sending',
    'source=newsletter',
    'recipient=not-an-email',
    'campaign_id=42',
    'automation_id=nope',
    'since=yesterday',
    'until=2026-13-01T00:00:00Z',
    'status=sent&status=delivered',
    'limit=abc',
    'cursor=garbage',
  ])('answers 400 for %s', async (query) => {
    const response = await get(`/v1/messages?${query}`).expect(400);
    expect(response.body.error.code).toBe('invalid_request');
  });

  it('pages by cursor, newest first, without repeats or gaps', async () => {
    const all = await list('');
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const page = await get(`/v1/messages?limit=3${query}`).expect(200);
      expect(page.body.data.length).toBeLessThanOrEqual(3);
      walked.push(...(page.body.data as Message[]).map((m) => m.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(walked).toEqual(all.map((m) => m.id));
    // A cursor of another list is refused.
    const subscribers = await get('/v1/subscribers?limit=1').expect(200);
    await get(`/v1/messages?cursor=${encodeURIComponent(subscribers.body.next_cursor)}`).expect(
      400,
    );
  });

  it('keeps accounts apart and requires messages:read', async () => {
    const [message] = await list('');
    const other = await api.tenant('Other');
    await get(`/v1/messages/${message.id}`, other.auth).expect(404);
    expect((await get('/v1/messages', other.auth).expect(200)).body.data).toEqual([]);
    await get('/v1/messages/not-a-uuid').expect(404);

    const reader = await api.key(tenant.accountId, ['messages:read']);
    await get(`/v1/messages/${message.id}`, `Bearer ${reader.key}`).expect(200);
    const without = await api.key(tenant.accountId, ['campaigns:read', 'stats:read']);
    const refused = await get('/v1/messages', `Bearer ${without.key}`).expect(403);
    expect(refused.body.error.code).toBe('insufficient_scope');
    await get(`/v1/messages/${message.id}`, `Bearer ${without.key}`).expect(403);
    await request(api.server).get('/v1/messages').expect(401);
  });

  it('forgets the address and subject of an erased identity', async () => {
    const before = await list('recipient=ada%40example.com');
    expect(before.length).toBeGreaterThan(0);
    await request(api.server)
      .post('/v1/erasures')
      .set('Authorization', tenant.auth)
      .send({ email: 'Ada@Example.com' })
      .expect(200);
    for (const { id } of before) {
      const message = await one(id);
      expect(message.recipient).toBeNull();
      expect(message.subject).toBeNull();
      expect(message.events.every((e) => e.reason === undefined && e.url === undefined)).toBe(true);
    }
    expect(await list('recipient=ada%40example.com')).toEqual([]);
    const [row] = await env.sql<{ n: number }>(
      `SELECT count(*)::int AS n FROM messages WHERE recipient ILIKE '%ada@example.com%'`,
    );
    expect(row.n).toBe(0);
  });
});

describe('message log retention', () => {
  let sink: SmtpSink;
  let env: TestEnv;
  let api: TestApi;
  let tenant: Tenant;

  beforeAll(async () => {
    sink = await SmtpSink.start();
    // Three seconds.
    env = await TestEnv.create({
      SMTP_URL: sink.url,
      ALLOW_UNVERIFIED_FROM: '1',
      RATE_LIMIT: '100000',
      MESSAGE_RETENTION_DAYS: String(3 / 86_400),
    });
    api = await TestApi.start(env);
    tenant = await api.tenant();
  }, 60_000);

  afterAll(async () => {
    await api?.close();
    await env?.dispose();
    await sink?.close();
  });

  it('answers 404 for a message past retention and deletes it from the database', async () => {
    const sent = await request(api.server)
      .post('/v1/transactional/send')
      .set('Authorization', tenant.auth)
      .send({ to: 'old@example.com', from: 'app@acme.test', subject: 'Old', text: 'x' })
      .expect(202);
    const id = sent.body.id as string;
    await request(api.server)
      .get(`/v1/messages/${id}`)
      .set('Authorization', tenant.auth)
      .expect(200);
    await waitFor(
      async () =>
        (await request(api.server).get(`/v1/messages/${id}`).set('Authorization', tenant.auth))
          .status === 404,
      { timeoutMs: 10_000 },
    );
    const listed = await request(api.server)
      .get('/v1/messages')
      .set('Authorization', tenant.auth)
      .expect(200);
    expect(listed.body.data).toEqual([]);
    await waitFor(async () => {
      await api.app.get(MessageRetention).sweep();
      const [row] = await env.sql<{ messages: number; events: number }>(
        `SELECT (SELECT count(*)::int FROM messages) AS messages,
                (SELECT count(*)::int FROM message_events) AS events`,
      );
      return row.messages === 0 && row.events === 0;
    });
  });
});
