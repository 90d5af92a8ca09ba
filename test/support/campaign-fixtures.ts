import request from 'supertest';
import { newId } from '../../src/platform/crypto/ids';
import { TestEnv } from './test-env';

/**
 * Inserts `count` subscribers in one statement (the API path is tested elsewhere; a campaign
 * test needs an audience fast). Emails are `<prefix><i>@<domain>`, first names `Person <i>`.
 */
export async function seedSubscribers(
  env: TestEnv,
  accountId: string,
  count: number,
  { prefix = 'reader', domain = 'example.com' } = {},
): Promise<{ id: string; email: string; index: number }[]> {
  const rows = Array.from({ length: count }, (_, index) => ({
    id: newId(),
    email: `${prefix}${index}@${domain}`,
    index,
  }));
  for (let start = 0; start < rows.length; start += 5000) {
    const slice = rows.slice(start, start + 5000);
    await env.sql(
      `INSERT INTO subscribers (id, account_id, email, email_normalized, first_name, custom_fields)
       SELECT u.id, $1, u.email, u.email, 'Person ' || u.n, jsonb_build_object('n', u.n)
         FROM unnest($2::uuid[], $3::text[], $4::int[]) AS u(id, email, n)`,
      [accountId, slice.map((r) => r.id), slice.map((r) => r.email), slice.map((r) => r.index)],
    );
  }
  return rows;
}

/** Polls the campaign until it is `sent` (or the deadline passes) and returns its stats. */
export async function waitUntilSent(
  server: Parameters<typeof request>[0],
  auth: string,
  campaignId: string,
  timeoutMs = 60_000,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const stats = await request(server)
      .get(`/v1/campaigns/${campaignId}/stats`)
      .set('Authorization', auth)
      .expect(200);
    if (stats.body.status === 'sent') return stats.body as Record<string, unknown>;
    if (Date.now() > deadline) {
      throw new Error(`campaign not sent in time: ${JSON.stringify(stats.body)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
