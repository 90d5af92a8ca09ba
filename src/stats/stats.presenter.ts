import { ApiProperty } from '@nestjs/swagger';
import type { DayRow } from './stats.repository';
import type { DayTotals } from './stats.service';

export class StatsCounts {
  @ApiProperty({ type: 'integer', description: 'Messages the relay gave a final answer for.' })
  sent!: number;
  @ApiProperty({ type: 'integer', description: 'Accepted by the relay (SMTP 250).' })
  delivered!: number;
  @ApiProperty({ type: 'integer', description: "People's opens (machine opens excluded)." })
  opens!: number;
  @ApiProperty({ type: 'integer', description: 'Messages opened by a person, each once.' })
  unique_opens!: number;
  @ApiProperty({
    type: 'integer',
    description: 'Opens by privacy proxies (Apple Mail Privacy Protection) and scanners.',
  })
  machine_opens!: number;
  @ApiProperty({ type: 'integer', description: "People's clicks (machine clicks excluded)." })
  clicks!: number;
  @ApiProperty({ type: 'integer', description: 'Messages clicked by a person, each once.' })
  unique_clicks!: number;
  @ApiProperty({
    type: 'integer',
    description: 'Clicks by link scanners, or within seconds of delivery.',
  })
  machine_clicks!: number;
  @ApiProperty({ type: 'integer' }) hard_bounces!: number;
  @ApiProperty({ type: 'integer' }) soft_bounces!: number;
  @ApiProperty({ type: 'integer' }) complaints!: number;
  @ApiProperty({ type: 'integer' }) unsubscribes!: number;
  @ApiProperty({ type: 'integer', description: 'Conversions reported, by the day they happened.' })
  revenue_cents!: number;
}

export class StatsDay extends StatsCounts {
  @ApiProperty({ format: 'date', example: '2026-11-20' }) date!: string;
}

export class SubscriberCountsResponse {
  @ApiProperty({ type: 'integer' }) total!: number;
  @ApiProperty({ type: 'integer' }) subscribed!: number;
  @ApiProperty({ type: 'integer' }) unsubscribed!: number;
  @ApiProperty({ type: 'integer' }) bounced!: number;
  @ApiProperty({ type: 'integer' }) complained!: number;
}

export class AccountStatsResponse extends StatsCounts {
  @ApiProperty({ format: 'date', description: 'First day of the window (UTC).' }) from!: string;
  @ApiProperty({ format: 'date', description: 'Last day of the window (UTC), inclusive.' })
  to!: string;
  @ApiProperty({ type: [StatsDay], description: 'Every day of the window, oldest first.' })
  daily!: StatsDay[];
  @ApiProperty({
    type: SubscriberCountsResponse,
    description: 'Subscribers now, by status (not limited to the window).',
  })
  subscribers!: SubscriberCountsResponse;
}

export function presentCounts(counts: DayTotals): StatsCounts {
  return {
    sent: counts.sent,
    delivered: counts.delivered,
    opens: counts.opens,
    unique_opens: counts.unique_opens,
    machine_opens: counts.machine_opens,
    clicks: counts.clicks,
    unique_clicks: counts.unique_clicks,
    machine_clicks: counts.machine_clicks,
    hard_bounces: counts.hard_bounces,
    soft_bounces: counts.soft_bounces,
    complaints: counts.complaints,
    unsubscribes: counts.unsubscribes,
    revenue_cents: counts.revenue_cents,
  };
}

export function presentDay(row: DayRow): StatsDay {
  return { date: row.day, ...presentCounts(row) };
}
