import { Injectable } from '@nestjs/common';
import type { AccountId } from '../../platform/database/account-id';
import { PrismaService } from '../../platform/database/prisma.service';
import * as sql from './campaign-ledger.sql';

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

  async timeline(accountId: AccountId, campaignId: string): Promise<Timeline> {
    const [extent] = await this.prisma.$queryRaw<{ first: Date | null; last: Date | null }[]>(
      sql.timelineExtent(accountId, campaignId),
    );
    if (!extent?.first || !extent.last) return { start: null, bucket_seconds: 0, buckets: [] };

    const spanSeconds = (extent.last.getTime() - extent.first.getTime()) / 1000;
    const width = WIDTHS.find((w) => spanSeconds / w < MAX_BUCKETS) ?? WIDTHS.at(-1)!;
    const start = new Date(Math.floor(extent.first.getTime() / (width * 1000)) * width * 1000);
    const rows = await this.prisma.$queryRaw<{ bucket: number; kind: string; n: number }[]>(
      sql.timelineBuckets(accountId, campaignId, start, width),
    );

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
