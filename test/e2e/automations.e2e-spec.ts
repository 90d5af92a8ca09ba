import request from 'supertest';
import { SmtpSink } from '../support/smtp-sink';
import { TestApi, TestEnv } from '../support/test-env';
import type { Tenant } from '../support/factories';
import { waitFor } from '../support/wait-for';

/**
 * Automations end to end in one process with its workers: the automations API, the
 * engine, the triggers and exits, sending through the campaign delivery to an SMTP sink.
 */
describe('automations (e2e)', () => {
  let sink: SmtpSink;
  let env: TestEnv;
  let api: TestApi;
  let tenant: Tenant;
  let templateId: string;

  beforeAll(async () => {
    sink = await SmtpSink.start({ keepBodies: true });
    env = await TestEnv.create({ SMTP_URL: sink.url, ALLOW_UNVERIFIED_FROM: '1' });
    api = await TestApi.start(env);
    tenant = await api.tenant('Automations');
    templateId = (await api.make.template(tenant.accountId)).id;
  });

  afterAll(async () => {
    await api?.close();
    await env?.dispose();
    await sink?.close();
  });

  const http = () => request(api.server);
  const as = (method: 'get' | 'post' | 'patch' | 'delete', path: string, auth = tenant.auth) =>
    http()[method](path).set('Authorization', auth);
  const subscribe = async (email: string, extra: object = {}) => {
    const response = await as('post', '/v1/subscribers').send({ email, ...extra });
    expect(response.status).toBe(201);
    return response.body.id as string;
  };
  const create = async (body: object) => {
    const response = await as('post', '/v1/automations').send({
      name: 'Flow',
      steps: [{ id: 'hello', type: 'send', template_id: templateId, from: 'news@acme.test' }],
      ...body,
    });
    expect(response.status).toBe(201);
    return response.body.id as string;
  };
  const activate = async (id: string) => {
    const response = await as('post', `/v1/automations/${id}/activate`);
    expect(response.status).toBe(200);
    expect(response.body.status).toBe('active');
  };
  const runsOf = async (id: string, query = '') => {
    const response = await as('get', `/v1/automations/${id}/runs${query}`);
    expect(response.status).toBe(200);
    return response.body.data as {
      id: string;
      subscriber_id: string | null;
      status: string;
      exit_reason: string | null;
      current_step_id: string | null;
      steps: { step_id: string; status: string; message_id?: string }[];
    }[];
  };
  const runOf = async (automationId: string, subscriberId: string) =>
    (await runsOf(automationId, `?subscriber_id=${subscriberId}`))[0];
  const mailTo = (email: string) => sink.messages.filter((m) => m.to.includes(email));

  describe('definitions', () => {
    it('creates a draft and reads it back', async () => {
      const body = {
        name: 'Welcome',
        trigger: { type: 'subscriber_created' },
        steps: [
          { id: 'a', type: 'send', template_id: templateId },
          { id: 'w', type: 'wait', seconds: 60 },
          { id: 'c', type: 'condition', if: { opened: 'a' }, then: null, else: 'b' },
          { id: 'b', type: 'send', template_id: templateId, subject: 'Did you see?' },
        ],
      };
      const created = await as('post', '/v1/automations').send(body);
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.any(String),
        ...body,
        status: 'draft',
        reentry: 'never',
        created_at: expect.any(String),
        updated_at: expect.any(String),
        activated_at: null,
        paused_reason: null,
      });
      const read = await as('get', `/v1/automations/${created.body.id}`);
      expect(read.body).toEqual(created.body);
      const list = await as('get', '/v1/automations?limit=100');
      expect((list.body.data as { id: string }[]).map((a) => a.id)).toContain(created.body.id);
    });

    it('answers 422 at the path of each mistake', async () => {
      const response = await as('post', '/v1/automations').send({
        name: 'Broken',
        trigger: { type: 'date', field: 'birthdate', offset_days: 31, at: '25:00' },
        steps: [
          { id: 'a', type: 'send', template_id: '0190c2d4-0000-7000-8000-000000000000' },
          { id: 'a', type: 'wait', seconds: 0 },
          { id: 'c', type: 'condition', if: { clicked: 'd' }, then: 'nowhere', else: null },
          { id: 'd', type: 'send', template_id: templateId },
        ],
      });
      expect(response.status).toBe(422);
      const fields = (response.body.error.details as { field: string }[]).map((d) => d.field);
      expect(fields).toEqual(
        expect.arrayContaining([
          'trigger.offset_days',
          'trigger.at',
          'steps[1].id',
          'steps[1].seconds',
          'steps[2].if.clicked',
          'steps[2].then',
        ]),
      );
      const unknownTemplate = await as('post', '/v1/automations').send({
        name: 'No template',
        trigger: { type: 'manual' },
        steps: [{ id: 'a', type: 'send', template_id: '0190c2d4-0000-7000-8000-000000000000' }],
      });
      expect(unknownTemplate.status).toBe(422);
      expect(unknownTemplate.body.error.details[0]).toMatchObject({
        field: 'steps[0].template_id',
      });
    });

    it('refuses a loop that never passes a wait, and accepts one that does', async () => {
      const loop = (withWait: boolean) =>
        as('post', '/v1/automations').send({
          name: 'Loop',
          trigger: { type: 'manual' },
          steps: [
            { id: 'a', type: 'send', template_id: templateId },
            ...(withWait ? [{ id: 'w', type: 'wait', seconds: 3600 }] : []),
            { id: 'c', type: 'condition', if: { opened: 'a' }, then: null, else: 'a' },
          ],
        });
      const refused = await loop(false);
      expect(refused.status).toBe(422);
      expect(refused.body.error.details).toEqual([
        expect.objectContaining({ field: 'steps', code: 'cycle' }),
      ]);
      expect((await loop(true)).status).toBe(201);
    });

    it('edits only while draft or paused', async () => {
      const id = await create({ trigger: { type: 'manual' } });
      expect((await as('patch', `/v1/automations/${id}`).send({ name: 'Renamed' })).status).toBe(
        200,
      );
      await activate(id);
      const refused = await as('patch', `/v1/automations/${id}`).send({ name: 'Again' });
      expect(refused.status).toBe(409);
      expect((await as('post', `/v1/automations/${id}/activate`)).status).toBe(409);
      const paused = await as('post', `/v1/automations/${id}/pause`);
      expect(paused.status).toBe(200);
      // Paused by a person: no reason of the guard's.
      expect(paused.body).toMatchObject({ status: 'paused', paused_reason: null });
      expect((await as('patch', `/v1/automations/${id}`).send({ name: 'Again' })).status).toBe(200);
    });

    it('needs the automations scopes, and events:write for events', async () => {
      const { key } = await api.key(tenant.accountId, ['subscribers:read']);
      const bearer = `Bearer ${key}`;
      expect((await as('get', '/v1/automations', bearer)).status).toBe(403);
      expect((await as('post', '/v1/events', bearer).send({ name: 'x' })).status).toBe(403);
      const reader = `Bearer ${(await api.key(tenant.accountId, ['automations:read'])).key}`;
      expect((await as('get', '/v1/automations', reader)).status).toBe(200);
      expect(
        (await as('post', '/v1/automations', reader).send({ name: 'x', trigger: {}, steps: [] }))
          .status,
      ).toBe(403);
    });
  });

  it('runs a welcome series for subscribers created after activation only', async () => {
    const before = await subscribe('before@welcome.test');
    const id = await create({
      trigger: {
        type: 'subscriber_created',
        filter: { field: 'tags', op: 'contains', value: 'new' },
      },
      steps: [
        { id: 'hello', type: 'send', template_id: templateId, subject: 'Welcome {{first_name}}' },
        { id: 'pause', type: 'wait', seconds: 2 },
        {
          id: 'vip',
          type: 'condition',
          if: { filter: { field: 'country_code', op: 'eq', value: 'GB' } },
          then: 'tips',
          else: null,
        },
        { id: 'tips', type: 'send', template_id: templateId, subject: 'Tips' },
      ],
    });
    await subscribe('early@welcome.test', { tags: ['new'] }); // still a draft: never enters
    await activate(id);
    const gb = await subscribe('gb@welcome.test', {
      tags: ['new'],
      country_code: 'GB',
      first_name: 'Ann',
    });
    const fr = await subscribe('fr@welcome.test', { tags: ['new'], country_code: 'FR' });
    await subscribe('untagged@welcome.test'); // the filter turns them away

    await waitFor(async () => (await runOf(id, gb))?.status === 'completed', { timeoutMs: 30_000 });
    await waitFor(async () => (await runOf(id, fr))?.status === 'completed', { timeoutMs: 30_000 });
    const runs = await runsOf(id);
    expect(runs.map((r) => r.subscriber_id).sort()).toEqual([gb, fr].sort());
    expect(await runOf(id, before)).toBeUndefined();

    const gbRun = await runOf(id, gb);
    expect(gbRun.steps.map((s) => [s.step_id, s.status])).toEqual([
      ['hello', 'done'],
      ['pause', 'done'],
      ['vip', 'done'],
      ['tips', 'done'],
    ]);
    const frRun = await runOf(id, fr);
    expect(frRun.steps.map((s) => s.step_id)).toEqual(['hello', 'pause', 'vip']);

    await waitFor(
      () => mailTo('gb@welcome.test').length === 2 && mailTo('fr@welcome.test').length === 1,
    );
    const [welcome] = mailTo('gb@welcome.test');
    expect(welcome.headers.subject).toBe('Welcome Ann');
    // Marketing mail: the campaign path's unsubscribe headers and Message-ID.
    expect(welcome.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
    expect(welcome.headers['message-id']).toContain(gbRun.steps[0].message_id);

    const stats = await waitFor(async () => {
      const response = await as('get', `/v1/automations/${id}/stats`);
      const body = response.body as { steps: { delivered: number }[] };
      return body.steps[0].delivered === 2 ? body : undefined;
    });
    expect(stats).toMatchObject({ entered: 2, waiting: 0, completed: 2, exited: {} });
    expect(stats.steps).toEqual([
      expect.objectContaining({ step_id: 'hello', entered: 2, sent: 2, delivered: 2 }),
      expect.objectContaining({ step_id: 'pause', entered: 2, sent: 0 }),
      expect.objectContaining({ step_id: 'vip', entered: 2 }),
      expect.objectContaining({ step_id: 'tips', entered: 1, sent: 1, delivered: 1 }),
    ]);
    // The account's stats count automation mail too.
    const account = await as('get', '/v1/stats');
    expect(account.body.delivered).toBeGreaterThanOrEqual(3);
    // Hidden step campaigns are no campaigns of the list.
    const campaigns = await as('get', '/v1/campaigns?limit=100');
    expect(campaigns.body.data).toEqual([]);
  });

  it('enrols by events, with reentry always one run per event, and replays an Idempotency-Key', async () => {
    const person = await subscribe('buyer@events.test');
    const id = await create({
      trigger: { type: 'event', name: 'order_placed' },
      reentry: 'always',
    });
    const before = await as('post', '/v1/events').send({
      name: 'order_placed',
      email: 'buyer@events.test',
    });
    expect(before.status).toBe(202); // before activation: recorded, enrols nobody
    await activate(id);
    const first = await as('post', '/v1/events')
      .set('Idempotency-Key', 'order-1')
      .send({ name: 'order_placed', email: 'buyer@events.test', properties: { total: 12 } });
    expect(first.status).toBe(202);
    expect(first.body).toEqual({
      id: expect.any(String),
      name: 'order_placed',
      subscriber_id: person,
      occurred_at: expect.any(String),
    });
    const replay = await as('post', '/v1/events')
      .set('Idempotency-Key', 'order-1')
      .send({ name: 'order_placed', email: 'buyer@events.test', properties: { total: 12 } });
    expect(replay.status).toBe(202);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    await as('post', '/v1/events')
      .send({ name: 'order_placed', subscriber_id: person })
      .expect(202);
    await as('post', '/v1/events').send({ name: 'other_event', subscriber_id: person }).expect(202);
    await waitFor(async () => (await runsOf(id, '?status=completed')).length === 2);
    expect(await runsOf(id)).toHaveLength(2);
    await waitFor(() => mailTo('buyer@events.test').length === 2);

    const unknown = await as('post', '/v1/events').send({ name: 'x', email: 'nobody@events.test' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.details[0].field).toBe('email');
  });

  it('enrols by hand under the reentry rules', async () => {
    const person = await subscribe('manual@reentry.test');
    const never = await create({ trigger: { type: 'manual' } });
    const draft = await as('post', `/v1/automations/${never}/runs`).send({ subscriber_id: person });
    expect(draft.status).toBe(409);
    await activate(never);
    const run = await as('post', `/v1/automations/${never}/runs`).send({ subscriber_id: person });
    expect(run.status).toBe(201);
    expect(run.body).toMatchObject({
      automation_id: never,
      subscriber_id: person,
      status: 'waiting',
    });
    await waitFor(
      async () =>
        (await as('get', `/v1/automation-runs/${run.body.id}`)).body.status === 'completed',
    );
    const again = await as('post', `/v1/automations/${never}/runs`).send({ subscriber_id: person });
    expect(again.status).toBe(409);

    const afterExit = await create({
      trigger: { type: 'manual' },
      reentry: 'after_exit',
      steps: [{ id: 'w', type: 'wait', seconds: 3600 }],
    });
    await activate(afterExit);
    const waiting = await as('post', `/v1/automations/${afterExit}/runs`).send({
      subscriber_id: person,
    });
    expect(waiting.status).toBe(201);
    expect(
      (await as('post', `/v1/automations/${afterExit}/runs`).send({ subscriber_id: person }))
        .status,
    ).toBe(409); // the first run is still going
    const cancelled = await as('post', `/v1/automation-runs/${waiting.body.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    expect((await as('post', `/v1/automation-runs/${waiting.body.id}/cancel`)).status).toBe(409);
    expect(
      (await as('post', `/v1/automations/${afterExit}/runs`).send({ subscriber_id: person }))
        .status,
    ).toBe(201);
  });

  it('holds runs while paused and runs the due steps on activate', async () => {
    const person = await subscribe('paused@flow.test');
    const id = await create({
      trigger: { type: 'manual' },
      steps: [
        { id: 'w', type: 'wait', seconds: 1 },
        { id: 'hello', type: 'send', template_id: templateId },
      ],
    });
    await activate(id);
    const run = await as('post', `/v1/automations/${id}/runs`).send({ subscriber_id: person });
    await as('post', `/v1/automations/${id}/pause`).expect(200);
    // The wait falls due while paused: the run stays where it is.
    const [row] = await env.sql<{ next_step_at: Date }>(
      'SELECT next_step_at FROM automation_runs WHERE id = $1',
      [run.body.id],
    );
    await waitFor(() => Date.now() > row.next_step_at.getTime() + 1500, { timeoutMs: 10_000 });
    expect((await as('get', `/v1/automation-runs/${run.body.id}`)).body).toMatchObject({
      status: 'waiting',
      current_step_id: 'w',
    });
    expect(mailTo('paused@flow.test')).toHaveLength(0);
    await activate(id);
    await waitFor(
      async () =>
        (await as('get', `/v1/automation-runs/${run.body.id}`)).body.status === 'completed',
    );
    await waitFor(() => mailTo('paused@flow.test').length === 1);
    // The message log holds the send as the automation's, of this run.
    const logged = await waitFor(async () => {
      const page = await as('get', '/v1/messages?recipient=paused@flow.test').expect(200);
      const data = page.body.data as { status: string }[];
      return data.some((m) => m.status === 'delivered') ? data : undefined;
    });
    expect(logged).toEqual([
      expect.objectContaining({
        source: 'automation',
        automation_id: id,
        automation_run_id: run.body.id,
        status: 'delivered',
      }),
    ]);
  });

  it('ends a run whose step an edit removed', async () => {
    const person = await subscribe('edited@flow.test');
    const id = await create({
      trigger: { type: 'manual' },
      steps: [
        { id: 'w', type: 'wait', seconds: 3600 },
        { id: 'hello', type: 'send', template_id: templateId },
      ],
    });
    await activate(id);
    const run = await as('post', `/v1/automations/${id}/runs`).send({ subscriber_id: person });
    await waitFor(
      async () =>
        (await as('get', `/v1/automation-runs/${run.body.id}`)).body.current_step_id === 'w',
    );
    await as('post', `/v1/automations/${id}/pause`).expect(200);
    const edited = await as('patch', `/v1/automations/${id}`).send({
      steps: [{ id: 'hello', type: 'send', template_id: templateId }],
    });
    expect(edited.status).toBe(200);
    expect((await as('get', `/v1/automation-runs/${run.body.id}`)).body).toMatchObject({
      status: 'exited',
      exit_reason: 'step_removed',
    });
  });

  describe('exits', () => {
    let id: string;
    beforeAll(async () => {
      id = await create({
        trigger: { type: 'manual' },
        reentry: 'always',
        steps: [
          { id: 'w', type: 'wait', seconds: 3600 },
          { id: 'hello', type: 'send', template_id: templateId },
        ],
      });
      await activate(id);
    });
    const enrol = async (email: string) => {
      const subscriberId = await subscribe(email);
      const run = await as('post', `/v1/automations/${id}/runs`).send({
        subscriber_id: subscriberId,
      });
      expect(run.status).toBe(201);
      return { subscriberId, runId: run.body.id as string };
    };
    const exitOf = (runId: string) =>
      waitFor(async () => {
        const run = (await as('get', `/v1/automation-runs/${runId}`)).body as { status: string };
        return run.status === 'exited' ? run : undefined;
      });

    it('leaves when the subscriber unsubscribes, bounces or complains', async () => {
      for (const status of ['unsubscribed', 'bounced', 'complained']) {
        const { subscriberId, runId } = await enrol(`${status}@exits.test`);
        await as('patch', `/v1/subscribers/${subscriberId}`).send({ status }).expect(200);
        expect(await exitOf(runId)).toMatchObject({ exit_reason: status, next_step_at: null });
      }
    });

    it('leaves when the address is suppressed', async () => {
      const { runId } = await enrol('suppressed@exits.test');
      await as('post', '/v1/suppressions')
        .send({ email: 'suppressed@exits.test', reason: 'manual' })
        .expect(201);
      expect(await exitOf(runId)).toMatchObject({ exit_reason: 'suppressed' });
    });

    it('leaves at once when erased, keeping no trace of the person', async () => {
      const { subscriberId, runId } = await enrol('erased@exits.test');
      await as('post', '/v1/events')
        .send({ name: 'secret', subscriber_id: subscriberId })
        .expect(202);
      await as('post', '/v1/erasures').send({ email: 'erased@exits.test' }).expect(200);
      const run = (await as('get', `/v1/automation-runs/${runId}`)).body;
      expect(run).toMatchObject({ status: 'exited', exit_reason: 'erased', subscriber_id: null });
      const traces = await env.sql(
        `SELECT 1 FROM automation_runs WHERE subscriber_id = $1
         UNION ALL SELECT 1 FROM automation_events WHERE subscriber_id = $1
         UNION ALL SELECT 1 FROM automation_runs r WHERE r::text LIKE '%erased@exits.test%'`,
        [subscriberId],
      );
      expect(traces).toEqual([]);
    });
  });

  it('enrols who comes to match a segment after activation', async () => {
    const segment = await api.make.segment(tenant.accountId, {
      field: 'tags',
      op: 'contains',
      value: 'gold',
    });
    const already = await subscribe('already@segment.test', { tags: ['gold'] });
    const later = await subscribe('later@segment.test');
    const id = await create({ trigger: { type: 'segment_entered', segment_id: segment.id } });
    await activate(id);
    await as('patch', `/v1/subscribers/${later}`)
      .send({ tags: ['gold'] })
      .expect(200);
    await waitFor(async () => (await runOf(id, later))?.status === 'completed', {
      timeoutMs: 30_000,
    });
    expect(await runOf(id, already)).toBeUndefined();
  });

  it('fires a date trigger on the day, at the time, in the subscriber time zone', async () => {
    // "at" a minute ago in Tokyo, on today's date there: due now.
    const tokyo = new Date(Date.now() + 9 * 3600_000 - 60_000);
    const at = tokyo.toISOString().slice(11, 16);
    const birthday = `1990-${tokyo.toISOString().slice(5, 10)}`;
    const local = await subscribe('tokyo@date.test', {
      timezone: 'Asia/Tokyo',
      birthdate: birthday,
    });
    // The same date and time in UTC-10 is hours away.
    const far = await subscribe('honolulu@date.test', {
      timezone: 'Pacific/Honolulu',
      birthdate: birthday,
    });
    const id = await create({ trigger: { type: 'date', field: 'birthdate', at } });
    await activate(id);
    // As if activated a while ago: a moment before activation never fires (no backfill).
    await env.sql(
      `UPDATE automations SET activated_at = now() - interval '10 minutes' WHERE id = $1`,
      [id],
    );
    await waitFor(async () => (await runOf(id, local))?.status === 'completed', {
      timeoutMs: 30_000,
    });
    // The sweep that enrolled Tokyo looked at Honolulu in the same statement.
    expect(await runOf(id, far)).toBeUndefined();
    const [run] = await env.sql<{ trigger_key: string }>(
      'SELECT trigger_key FROM automation_runs WHERE automation_id = $1',
      [id],
    );
    expect(run.trigger_key).toBe(`date:${tokyo.getUTCFullYear()}`);
  });
});
