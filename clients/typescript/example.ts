/**
 * The typed client in use: openapi-fetch over the types openapi-typescript generates from
 * the served document (`npm run client:generate` writes herald-api.d.ts). It calls every
 * operation of the API, so `npm run typecheck` fails when the document and this program
 * disagree, and the openapi e2e test compiles it against a client generated afresh.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './herald-api';

type Subscriber = components['schemas']['SubscriberResponse'];

export async function tour(baseUrl: string, apiKey: string): Promise<Subscriber[]> {
  const herald = createClient<paths>({
    baseUrl,
    headers: { Authorization: `Bearer ${apiKey}` },
  });
  const id = { path: { id: '0193a6f2-7c1e-7d3a-9b2f-4e5d6c7b8a90' } };

  const created = await herald.POST('/v1/subscribers', {
    body: { email: 'ada@example.com', first_name: 'Ada', tags: ['vip'] },
  });
  if (created.error) throw new Error(created.error.error.message);
  const nickname: string | null = created.data.first_name;
  await herald.PATCH('/v1/subscribers/{id}', {
    params: { path: { id: created.data.id } },
    body: { last_name: nickname === null ? null : 'Lovelace' },
  });
  await herald.GET('/v1/subscribers/{id}', { params: id });
  await herald.POST('/v1/erasures', { body: { email: 'grace@example.com' } });
  const batch = await herald.POST('/v1/subscribers/batch', {
    body: {
      subscribers: [{ email: 'ada@example.com', tags: ['vip'] }, { email: 'alan@example.com' }],
    },
  });
  const batchFailures = batch.data?.results.filter((result) => result.status === 'failed') ?? [];

  // A CSV import is a multipart upload; the columns map is optional (unnamed headers are guessed).
  const imported = await herald.POST('/v1/imports', {
    body: { file: 'email,First Name,plan\nada@example.com,Ada,pro\n', mode: 'upsert' },
    bodySerializer: (body) => {
      const form = new FormData();
      form.append('file', new Blob([body.file], { type: 'text/csv' }), 'list.csv');
      if (body.mode) form.append('mode', body.mode);
      form.append('columns', JSON.stringify({ plan: 'custom_fields.plan' }));
      return form;
    },
  });
  const importId = { path: { id: imported.data?.id ?? '' } };
  const importProgress = await herald.GET('/v1/imports/{id}', { params: importId });
  const importFailed: number | undefined = importProgress.data?.failed;
  await herald.GET('/v1/imports/{id}/errors', { params: importId, parseAs: 'text' });
  const exported = await herald.POST('/v1/exports', { body: { segment_id: null } });
  const exportId = { path: { id: exported.data?.id ?? '' } };
  await herald.GET('/v1/exports/{id}', { params: exportId });
  const csv = await herald.GET('/v1/exports/{id}/download', { params: exportId, parseAs: 'text' });

  await herald.GET('/v1/suppressions', { params: { query: { limit: 10 } } });
  await herald.POST('/v1/suppressions', { body: { email: 'bob@example.com', reason: 'manual' } });
  await herald.DELETE('/v1/suppressions/{email}', {
    params: { path: { email: 'bob@example.com' } },
  });

  await herald.GET('/v1/segments');
  await herald.POST('/v1/segments', { body: { name: 'VIPs', filter: {} } });
  await herald.GET('/v1/segments/{id}', { params: id });
  await herald.PATCH('/v1/segments/{id}', { params: id, body: { name: 'Top VIPs' } });
  await herald.DELETE('/v1/segments/{id}', { params: id });

  await herald.GET('/v1/templates');
  await herald.POST('/v1/templates', {
    body: { name: 'Welcome', subject: 'Hi {{first_name}}', html: '<p>Hi</p>', text: null },
  });
  await herald.GET('/v1/templates/{id}', { params: id });
  await herald.PATCH('/v1/templates/{id}', { params: id, body: { subject: 'Hello' } });
  await herald.DELETE('/v1/templates/{id}', { params: id });
  await herald.POST('/v1/templates/{id}/preview', { params: id, body: { data: { n: 1 } } });

  await herald.GET('/v1/campaigns');
  const campaign = await herald.POST('/v1/campaigns', {
    body: { name: 'News', subject: 'News', from: 'news@acme.example', html: '<p>News</p>' },
  });
  const progress: number | undefined = campaign.data?.progress.percent;
  await herald.GET('/v1/campaigns/{id}', { params: id });
  await herald.PATCH('/v1/campaigns/{id}', { params: id, body: { segment_id: null } });
  await herald.DELETE('/v1/campaigns/{id}', { params: id });
  const sent = await herald.POST('/v1/campaigns/{id}/send', { params: id });
  const status: 'sending' | undefined = sent.data?.status;
  const stats = await herald.GET('/v1/campaigns/{id}/stats', { params: id });
  const delivered: number | undefined = stats.data?.delivered;
  await herald.POST('/v1/campaigns/{id}/schedule', {
    params: id,
    body: { send_at: '2026-12-01T09:00:00+01:00' },
  });
  await herald.DELETE('/v1/campaigns/{id}/schedule', { params: id });
  await herald.POST('/v1/campaigns/{id}/pause', { params: id });
  const resumed = await herald.POST('/v1/campaigns/{id}/resume', { params: id });
  const finishAt: string | null | undefined = resumed.data?.progress.expected_finish_at;
  await herald.POST('/v1/campaigns/{id}/cancel', { params: id });
  const test = await herald.POST('/v1/campaigns/{id}/test', {
    params: id,
    body: { emails: ['me@acme.example'] },
  });
  const testFailed = test.data?.results.some((result) => result.status === 'failed');
  await herald.POST('/v1/campaigns/{id}/duplicate', { params: id });
  const openRate: number | undefined = stats.data?.open_rate;
  const account = await herald.GET('/v1/stats', {
    params: { query: { from: '2026-11-01', to: '2026-11-30' } },
  });
  const revenue: number | undefined = account.data?.revenue_cents;
  await herald.POST('/v1/conversions', {
    params: { header: { 'Idempotency-Key': 'order-1042' } },
    body: { email: 'ada@example.com', amount_cents: 4999, currency: 'EUR' },
  });

  const hook = await herald.POST('/v1/webhooks', {
    body: { url: 'https://crm.acme.example/herald', events: ['email.delivered', 'email.bounced'] },
  });
  const secret: string | undefined = hook.data?.secret;
  await herald.GET('/v1/webhooks');
  await herald.GET('/v1/webhooks/{id}', { params: id });
  await herald.PATCH('/v1/webhooks/{id}', { params: id, body: { enabled: true } });
  const log = await herald.GET('/v1/webhooks/{id}/deliveries', { params: id });
  const attempt = log.data?.data[0];
  await herald.POST('/v1/webhooks/{id}/deliveries/{deliveryId}/retry', {
    params: { path: { id: id.path.id, deliveryId: attempt?.id ?? id.path.id } },
  });
  await herald.DELETE('/v1/webhooks/{id}', { params: id });

  const accepted = await herald.POST('/v1/transactional/send', {
    params: { header: { 'Idempotency-Key': 'order-1042' } },
    body: { to: 'ada@example.com', from: 'shop@acme.example', subject: 'Receipt', text: 'Thanks' },
  });
  const replayed = accepted.response.headers.get('Idempotent-Replayed') === 'true';
  await herald.GET('/v1/transactional/{id}', { params: id });
  // The message log: what happened to it (the 202's id is its message id).
  const bounced = await herald.GET('/v1/messages', {
    params: { query: { recipient: 'ada@example.com', status: 'bounced', limit: 100 } },
  });
  const timeline = await herald.GET('/v1/messages/{id}', {
    params: { path: { id: accepted.data?.id ?? id.path.id } },
  });
  console.log({ bounced: bounced.data?.data.length, events: timeline.data?.events.length });

  await herald.GET('/v1/automations');
  await herald.POST('/v1/automations', {
    body: {
      name: 'Welcome series',
      trigger: { type: 'subscriber_created' },
      steps: [
        { id: 'hello', type: 'send', template_id: id.path.id },
        { id: 'pause', type: 'wait', seconds: 172_800 },
      ],
      reentry: 'never',
    },
  });
  await herald.GET('/v1/automations/{id}', { params: id });
  await herald.PATCH('/v1/automations/{id}', { params: id, body: { name: 'Welcome' } });
  await herald.POST('/v1/automations/{id}/activate', { params: id });
  await herald.POST('/v1/automations/{id}/pause', { params: id });
  const funnel = await herald.GET('/v1/automations/{id}/stats', { params: id });
  await herald.GET('/v1/automations/{id}/runs', { params: id });
  const run = await herald.POST('/v1/automations/{id}/runs', {
    params: id,
    body: { subscriber_id: id.path.id },
  });
  await herald.GET('/v1/automation-runs/{id}', { params: id });
  await herald.POST('/v1/automation-runs/{id}/cancel', { params: id });
  await herald.DELETE('/v1/automations/{id}', { params: id });
  await herald.POST('/v1/events', {
    body: { name: 'trial_started', email: 'ada@example.com' },
  });
  console.log({ entered: funnel.data?.entered, run: run.data?.status });

  await herald.GET('/v1/domains');
  await herald.POST('/v1/domains', { body: { name: 'acme.example' } });
  await herald.GET('/v1/domains/{id}', { params: id });
  await herald.DELETE('/v1/domains/{id}', { params: id });
  await herald.POST('/v1/domains/{id}/verify', { params: id });
  await herald.POST('/v1/domains/{id}/rotate', { params: id });

  const page = await herald.GET('/v1/subscribers', { params: { query: { limit: 100 } } });
  console.log({ progress, status, delivered, finishAt, testFailed, openRate, revenue, secret });
  console.log({ replayed, next: page.data?.next_cursor });
  console.log({ batchFailures, importFailed, csvBytes: csv.data?.length });
  return page.data?.data ?? [];
}
