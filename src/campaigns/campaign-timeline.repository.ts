import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import { PrismaService } from '../platform/database/prisma.service';

export const TIMELINE_SERIES = ['delivered', 'failed', 'skipped', 'opens', 'clicks'] as const;
export type TimelineSeries = (typeof TIMELINE_SERIES)[number];

export interface Timeline {
  /** Start of the first bucket, and the width of each. */
  start: string | null;
  bucket_seconds: number;
  /** One entry per bucket; counts of events that happened within it. */
  buckets: ({ at: string } & Record<TimelineSeries, number>)[];
}

/** Bucket widths a person reads easily; the first giving at most MAX_BUCKETS is used. */
const WIDTHS = [1, 5, 10, 30, 60, 300, 900, 1800, 3600, 3 * 3600, 6 * 3600, 86400, 7 * 86400];
const MAX_BUCKETS = 60;

/**
 * A campaign's events over time, read from the send ledger (campaign_recipients): when each
 * message was delivered, failed or skipped, and when recipients first opened and clicked.
 * The campaign row keeps totals only; this read-only view draws the dashboard's stats chart.
 */
@Injectable()
export class CampaignTimelineRepository {
  constructor(private readonly prisma: PrismaService) {}

  async timeline(accountId: string, campaignId: string): Promise<Timeline> {
    const where = Prisma.sql`account_id = ${accountId}::uuid AND campaign_id = ${campaignId}::uuid`;
    const [extent] = await this.prisma.$queryRaw<{ first: Date | null; last: Date | null }[]>`
      SELECT min(t) AS first, max(t) AS last FROM (
        SELECT min(coalesce(sent_at, created_at)) AS t FROM campaign_recipients
         WHERE ${where} AND status IN ('sent', 'failed', 'skipped')
        UNION ALL
        SELECT max(greatest(coalesce(sent_at, created_at), opened_at, clicked_at))
          FROM campaign_recipients WHERE ${where} AND status IN ('sent', 'failed', 'skipped')
      ) e`;
    if (!extent?.first || !extent.last) return { start: null, bucket_seconds: 0, buckets: [] };

    const spanSeconds = (extent.last.getTime() - extent.first.getTime()) / 1000;
    const width = WIDTHS.find((w) => spanSeconds / w < MAX_BUCKETS) ?? WIDTHS.at(-1)!;
    const start = new Date(Math.floor(extent.first.getTime() / (width * 1000)) * width * 1000);
    const rows = await this.prisma.$queryRaw<{ bucket: number; kind: string; n: number }[]>`
      SELECT floor(extract(epoch FROM t - ${start}::timestamptz) / ${width})::int AS bucket,
             kind, count(*)::int AS n
        FROM (
          SELECT sent_at AS t, CASE status WHEN 'sent' THEN 'delivered' ELSE 'failed' END AS kind
            FROM campaign_recipients WHERE ${where} AND status IN ('sent', 'failed')
          UNION ALL
          SELECT coalesce(sent_at, created_at), 'skipped'
            FROM campaign_recipients WHERE ${where} AND status = 'skipped'
          UNION ALL
          SELECT opened_at, 'opens' FROM campaign_recipients
           WHERE ${where} AND opened_at IS NOT NULL
          UNION ALL
          SELECT clicked_at, 'clicks' FROM campaign_recipients
           WHERE ${where} AND clicked_at IS NOT NULL
        ) events
       WHERE t IS NOT NULL
       GROUP BY 1, 2 ORDER BY 1`;

    const count = Math.max(1, (rows.at(-1)?.bucket ?? 0) + 1);
    const buckets = Array.from({ length: count }, (_, index) => ({
      at: new Date(start.getTime() + index * width * 1000).toISOString(),
      delivered: 0,
      failed: 0,
      skipped: 0,
      opens: 0,
      clicks: 0,
    }));
    for (const row of rows) {
      const bucket = buckets[row.bucket];
      if (bucket && (TIMELINE_SERIES as readonly string[]).includes(row.kind)) {
        bucket[row.kind as TimelineSeries] += row.n;
      }
    }
    return { start: start.toISOString(), bucket_seconds: width, buckets };
  }
}
