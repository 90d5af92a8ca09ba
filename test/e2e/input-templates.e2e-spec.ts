import request from 'supertest';
import { waitUntilSent } from '../support/campaign-fixtures';
import { SmtpSink } from '../support/smtp-sink';
import { TestApi, TestEnv } from '../support/test-env';

/**
 * Templates that fail: at save time with the line, at preview and on a transactional send
 * with a 422 on the field (a transactional message is rendered when it is accepted, so it never
 * fails to render later), and in a campaign as a failed message for that recipient only, with
 * the reason kept on its ledger row.
 */
describe('templates that fail', () => {
  let sink: SmtpSink;
  let env: TestEnv;
  let api: TestApi;
  let auth: string;

  beforeAll(async () => {
    sink = await SmtpSink.start();
    env = await TestEnv.create({
      SMTP_URL: sink.url,
      PUBLIC_URL: 'https://herald.test',
      RATE_LIMIT: '100000',
      RATE_LIMIT_SEND: '100000',
      // The sink is a relay, so From is checked; these tests are about templates and links, not domains.
      ALLOW_UNVERIFIED_FROM: '1',
    });
    api = await TestApi.start(env);
    ({ auth } = await api.tenant());
  });
  afterAll(async () => {
    await api?.close();
    await env?.dispose();
    await sink?.close();
  });

  const post = (path: string, body: object) =>
    request(api.server).post(path).set('Authorization', auth).send(body);

  /** 300 copies of a 16 KiB value render to 4.8 MB: over the 4 MiB a rendered field may be. */
  const HUGE = '{{big}}'.repeat(300);
  const big = 'x'.repeat(16 * 1024 - 32);

  it('refuses a template that does not compile with a 422 naming the field and the line', async () => {
    const response = await post('/v1/templates', {
      name: 'Broken',
      subject: 'Hi {{first_name',
      html: '<p>fine</p>\n<p>{{#if vip}}unclosed</p>',
      text: '{{lookup custom_fields}}',
    }).expect(422);
    expect(response.body.error.details).toEqual([
      {
        field: 'subject',
        code: 'invalid_template',
        message: expect.stringMatching(/line 1/),
        line: 1,
        column: 4,
      },
      {
        field: 'html',
        code: 'invalid_template',
        message: expect.stringMatching(/line 2/),
        line: 2,
        column: 4,
      },
      {
        field: 'text',
        code: 'invalid_template',
        message: expect.stringMatching(/two arguments/),
        line: 1,
        column: 1,
      },
    ]);
  });

  it('answers 422 render_failed at preview when the template cannot render the data', async () => {
    const { body: template } = await post('/v1/templates', {
      name: 'Huge',
      subject: 's',
      html: HUGE,
    }).expect(201);
    const response = await post(`/v1/templates/${template.id}/preview`, {
      data: { big },
    }).expect(422);
    expect(response.body.error.details).toEqual([
      { field: 'html', code: 'render_failed', message: expect.stringContaining('4 MiB') },
    ]);
    // The same template renders small data.
    const small = await post(`/v1/templates/${template.id}/preview`, { data: { big: 'y' } });
    expect(small.status).toBe(200);
    expect(small.body.html).toBe('y'.repeat(300));
  });

  it('answers 422 on a transactional send whose template cannot render, and stores nothing', async () => {
    const { body: template } = await post('/v1/templates', {
      name: 'Huge text',
      subject: 's',
      text: HUGE,
    }).expect(201);
    const response = await post('/v1/transactional/send', {
      to: 'render@example.com',
      from: 'a@acme.test',
      template_id: template.id,
      data: { big },
    }).expect(422);
    expect(response.body.error.details).toEqual([
      { field: 'text', code: 'render_failed', message: expect.any(String) },
    ]);
    const rows = await env.sql(`SELECT id FROM transactional_messages`);
    expect(rows).toEqual([]);
  });

  it('fails only the recipient a campaign template cannot render for; the campaign is sent', async () => {
    const ok = await post('/v1/subscribers', {
      email: 'fits@render.test',
      custom_fields: { big: 'small' },
    }).expect(201);
    const bad = await post('/v1/subscribers', {
      email: 'too-big@render.test',
      custom_fields: { big },
    }).expect(201);
    const { body: campaign } = await post('/v1/campaigns', {
      name: 'Huge',
      subject: 'Hi',
      from: 'news@acme.test',
      html: `<p>${HUGE}</p>`,
    }).expect(201);
    await post(`/v1/campaigns/${campaign.id}/send`, {}).expect(202);
    const stats = await waitUntilSent(api.server, auth, campaign.id);
    expect(stats).toMatchObject({ recipients: 2, delivered: 1, failed: 1 });
    expect(sink.messages.map((message) => message.to[0])).toContain('fits@render.test');
    expect(sink.messages.map((message) => message.to[0])).not.toContain('too-big@render.test');
    const rows = await env.sql<{
      subscriber_id: string;
      status: string;
      fail_reason: string | null;
    }>(
      `SELECT subscriber_id, status, fail_reason FROM campaign_recipients WHERE campaign_id = $1`,
      [campaign.id],
    );
    const byId = Object.fromEntries(rows.map((row) => [row.subscriber_id, row]));
    expect(byId[ok.body.id]).toMatchObject({ status: 'sent', fail_reason: null });
    // The reason is kept on the recipient's row: the field and what went wrong, no personal data.
    expect(byId[bad.body.id]).toMatchObject({ status: 'failed' });
    expect(byId[bad.body.id].fail_reason).toMatch(/^html could not be rendered: .*4 MiB/);
    expect(byId[bad.body.id].fail_reason).not.toContain('@');
    expect(byId[bad.body.id].fail_reason).not.toContain('xxxx');
  });
});
