import request from 'supertest';
import { waitFor } from './wait-for';

/** Polls the campaign until it is `sent` (or the deadline passes) and returns its stats. */
export async function waitUntilSent(
  server: Parameters<typeof request>[0],
  auth: string,
  campaignId: string,
  timeoutMs = 60_000,
): Promise<Record<string, unknown>> {
  let last: unknown;
  return waitFor(
    async () => {
      const stats = await request(server)
        .get(`/v1/campaigns/${campaignId}/stats`)
        .set('Authorization', auth)
        .expect(200);
      last = stats.body;
      return stats.body.status === 'sent' ? (stats.body as Record<string, unknown>) : undefined;
    },
    { timeoutMs, intervalMs: 100, message: () => `campaign not sent: ${JSON.stringify(last)}` },
  );
}
