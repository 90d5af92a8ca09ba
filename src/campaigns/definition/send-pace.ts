import { Campaign } from '../../generated/prisma/client';

/** The most messages per minute a campaign's rate_per_minute may ask for (10,000 a second). */
export const MAX_RATE_PER_MINUTE = 600_000;

type PaceFields = Pick<
  Campaign,
  'status' | 'recipientCount' | 'deliveredCount' | 'failedCount' | 'ratePerMinute' | 'startedAt'
>;

/**
 * When a sending campaign should be done, for its progress ("expected to finish at …"): the
 * recipients still to send at the pace the send rates allow (the campaign's own, or the
 * account's, the slower of the two), or, unthrottled, at the pace it has kept since it
 * started. An estimate: the account's rate is shared with its other campaigns, and recipients
 * still being read into the ledger are not counted yet. Null when nothing is sending or
 * nothing can be said yet.
 */
export function expectedFinishAt(
  row: PaceFields,
  accountRatePerMinute: number | undefined,
  now: Date,
): Date | null {
  if (row.status !== 'sending') return null;
  const sent = row.deliveredCount + row.failedCount;
  const remaining = Math.max(0, row.recipientCount - sent);
  const rates = [row.ratePerMinute, accountRatePerMinute].filter(
    (rate): rate is number => typeof rate === 'number' && rate > 0,
  );
  if (rates.length > 0) {
    return new Date(now.getTime() + (remaining / Math.min(...rates)) * 60_000);
  }
  if (!row.startedAt || sent === 0) return null;
  const elapsed = Math.max(1, now.getTime() - row.startedAt.getTime());
  return new Date(now.getTime() + (remaining * elapsed) / sent);
}
