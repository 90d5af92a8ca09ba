import { ApiProperty } from '@nestjs/swagger';
import { Campaign } from '../../generated/prisma/client';
import { expectedFinishAt } from './send-pace';

export const CAMPAIGN_STATUSES = [
  'draft',
  'scheduled',
  'sending',
  'paused',
  'sent',
  'cancelled',
] as const;
import type { CampaignEngagement } from '../../stats/stats.service';

export class CampaignProgress {
  @ApiProperty({ type: 'integer', description: 'Eligible recipients snapshotted so far.' })
  recipients!: number;
  @ApiProperty({ type: 'integer', description: 'Delivered plus failed.' }) sent!: number;
  @ApiProperty({ type: 'integer' }) delivered!: number;
  @ApiProperty({ type: 'integer' }) failed!: number;
  @ApiProperty({
    type: 'integer',
    description: 'Unsubscribed, bounced or erased audience members left out.',
  })
  skipped!: number;
  @ApiProperty({
    type: 'integer',
    description: 'Recipients still pending when the campaign was cancelled: never sent.',
  })
  cancelled!: number;
  @ApiProperty({ description: '0..100; 100 once the campaign is sent.' }) percent!: number;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description:
      'While sending: when the campaign should be done, at the pace its send rate (or the account’s) allows, else at the pace kept so far. Null otherwise.',
  })
  expected_finish_at!: string | null;
}

export class CampaignResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() subject!: string;
  @ApiProperty() from!: string;
  @ApiProperty({ type: String, nullable: true }) template_id!: string | null;
  @ApiProperty({ type: String, nullable: true }) segment_id!: string | null;
  @ApiProperty({ type: String, nullable: true }) html!: string | null;
  @ApiProperty({ type: String, nullable: true }) text!: string | null;
  @ApiProperty({
    enum: CAMPAIGN_STATUSES,
    description:
      'draft → (scheduled) → sending ⇄ paused → sent; or cancelled from any state before sent.',
  })
  status!: string;
  @ApiProperty({
    enum: ['complaint_rate', 'bounce_rate'],
    nullable: true,
    description:
      'Why a paused campaign paused itself: its complaint or hard-bounce rate over delivered messages passed COMPLAINT_RATE_LIMIT or BOUNCE_RATE_LIMIT. Null when a person paused it, and whenever it is not paused.',
  })
  paused_reason!: 'complaint_rate' | 'bounce_rate' | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When a scheduled campaign starts sending (kept once it has).',
  })
  send_at!: string | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description:
      'Messages per minute for this campaign (a steady pace after a first burst of at most 4); null: only the account’s limit.',
  })
  rate_per_minute!: number | null;
  @ApiProperty({ type: CampaignProgress }) progress!: CampaignProgress;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) started_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) finished_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) cancelled_at!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

export class CampaignPage {
  @ApiProperty({ type: [CampaignResponse] }) data!: CampaignResponse[];
  @ApiProperty({ type: String, nullable: true }) next_cursor!: string | null;
}

export class SendAcceptedResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: ['sending'] }) status!: 'sending';
}

export class CampaignLinkStats {
  @ApiProperty({ description: 'The link as clicked.' }) url!: string;
  @ApiProperty({ type: 'integer', description: "People's clicks on it." }) clicks!: number;
  @ApiProperty({ type: 'integer', description: 'Recipients who clicked it, once each.' })
  unique_clicks!: number;
  @ApiProperty({ type: 'integer', description: 'Machine clicks on it.' }) machine_clicks!: number;
}

export class CampaignStatsResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() status!: string;
  @ApiProperty({
    type: 'integer',
    description: 'Eligible recipients (audience minus everyone skipped).',
  })
  recipients!: number;
  @ApiProperty({
    type: 'integer',
    description: 'Messages handed to SMTP with a final answer: delivered + failed.',
  })
  sent!: number;
  @ApiProperty({ type: 'integer', description: 'Accepted by the SMTP server (250).' })
  delivered!: number;
  @ApiProperty({
    type: 'integer',
    description: 'Refused for good (5xx, or 4xx until retries ran out).',
  })
  failed!: number;
  @ApiProperty({ type: 'integer' }) skipped_erased!: number;
  @ApiProperty({ type: 'integer' }) skipped_unsubscribed!: number;
  @ApiProperty({ type: 'integer' }) skipped_bounced!: number;
  @ApiProperty({ type: 'integer' }) skipped_complained!: number;
  @ApiProperty({
    type: 'integer',
    description: 'Subscribed, but the address is on the suppression list.',
  })
  skipped_suppressed!: number;
  @ApiProperty({
    type: 'integer',
    description:
      'Subscribers whose status is none of subscribed, unsubscribed, bounced, complained (`pending`, say): not opted in, so never mailed.',
  })
  skipped_other!: number;
  @ApiProperty({
    type: 'integer',
    description: "People's opens (tracking pixel), every one; machine opens excluded.",
  })
  opens!: number;
  @ApiProperty({
    type: 'integer',
    description: 'Recipients who opened, once each (machine opens never count).',
  })
  unique_opens!: number;
  @ApiProperty({
    type: 'integer',
    description:
      'Opens by privacy proxies (Apple Mail Privacy Protection), scanners, or within seconds of delivery.',
  })
  machine_opens!: number;
  @ApiProperty({
    type: 'integer',
    description: "People's clicks on tracked links, every one; machine clicks excluded.",
  })
  clicks!: number;
  @ApiProperty({
    type: 'integer',
    description: 'Recipients who clicked, once each (machine clicks never count).',
  })
  unique_clicks!: number;
  @ApiProperty({
    type: 'integer',
    description: 'Clicks by link scanners, or within seconds of delivery.',
  })
  machine_clicks!: number;
  @ApiProperty({
    type: 'integer',
    description: 'Hard bounces: SMTP 5xx at sending, or a bounce report after.',
  })
  bounces!: number;
  @ApiProperty({ type: 'integer', description: 'The same as bounces.' }) hard_bounces!: number;
  @ApiProperty({
    type: 'integer',
    description: 'Temporary failures that outlasted retries, or soft bounce reports.',
  })
  soft_bounces!: number;
  @ApiProperty({ type: 'integer', description: 'Recipients who reported the message as spam.' })
  complaints!: number;
  @ApiProperty({
    type: 'integer',
    description: 'Recipients who unsubscribed through this message.',
  })
  unsubscribes!: number;
  @ApiProperty({
    type: 'number',
    description: 'unique_opens / delivered, 0..1 (0 before anything was delivered).',
  })
  open_rate!: number;
  @ApiProperty({ type: 'number', description: 'unique_clicks / delivered, 0..1.' })
  click_rate!: number;
  @ApiProperty({
    type: 'number',
    description: 'bounces / delivered, 0..1 (0 before anything was delivered).',
  })
  bounce_rate!: number;
  @ApiProperty({ type: 'number', description: 'complaints / delivered, 0..1.' })
  complaint_rate!: number;
  @ApiProperty({ type: 'number', description: 'unsubscribes / delivered, 0..1.' })
  unsubscribe_rate!: number;
  @ApiProperty({
    type: 'integer',
    description: 'Recipients still pending when the campaign was cancelled: never sent.',
  })
  cancelled!: number;
  @ApiProperty({ type: 'integer', description: 'Conversions credited to this campaign.' })
  conversions!: number;
  @ApiProperty({
    type: 'integer',
    description: 'Revenue of those conversions (named in the conversion, or by last click).',
  })
  revenue_cents!: number;
  @ApiProperty({
    type: [CampaignLinkStats],
    description: 'Clicks per link, the most clicked first (at most 100).',
  })
  links!: CampaignLinkStats[];
  @ApiProperty({
    type: 'integer',
    description:
      'Recipients not finished yet: waiting, in flight or deferred. delivered + failed + outstanding = recipients.',
  })
  outstanding!: number;
  @ApiProperty({
    type: 'integer',
    description:
      'Of the outstanding, recipients whose relay refused for now (SMTP 4xx, connection trouble): tried again with backoff until the retry horizon, then failed.',
  })
  deferred!: number;
  @ApiProperty({ type: 'number', description: '0..100' }) percent!: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) started_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) finished_at!: string | null;
}

function percent(row: Campaign): number {
  if (row.status === 'sent') return 100;
  const done = row.deliveredCount + row.failedCount;
  if (row.recipientCount === 0) return 0;
  return Math.min(100, Math.floor((done * 1000) / row.recipientCount) / 10);
}

/** A share of delivered messages, rounded to 4 decimals (0.0012 = 0.12 %). */
function rate(count: number, delivered: number): number {
  return delivered === 0 ? 0 : Math.round((count / delivered) * 10_000) / 10_000;
}

/**
 * `accountRatePerMinute` (SEND_RATE_PER_MINUTE) feeds the expected finish of a sending
 * campaign; `now` is when that estimate is made.
 */
export function presentCampaign(
  row: Campaign,
  accountRatePerMinute?: number,
  now = new Date(),
): CampaignResponse {
  return {
    id: row.id,
    name: row.name,
    subject: row.subject,
    from: row.fromAddress,
    template_id: row.templateId,
    segment_id: row.segmentId,
    html: row.html,
    text: row.text,
    status: row.status,
    paused_reason: row.status === 'paused' ? row.pausedReason : null,
    send_at: row.sendAt?.toISOString() ?? null,
    rate_per_minute: row.ratePerMinute,
    progress: {
      recipients: row.recipientCount,
      sent: row.deliveredCount + row.failedCount,
      delivered: row.deliveredCount,
      failed: row.failedCount,
      skipped:
        row.skippedErasedCount +
        row.skippedUnsubscribedCount +
        row.skippedBouncedCount +
        row.skippedComplainedCount +
        row.skippedSuppressedCount +
        row.skippedOtherCount,
      cancelled: row.cancelledCount,
      percent: percent(row),
      expected_finish_at: expectedFinishAt(row, accountRatePerMinute, now)?.toISOString() ?? null,
    },
    started_at: row.startedAt?.toISOString() ?? null,
    finished_at: row.finishedAt?.toISOString() ?? null,
    cancelled_at: row.cancelledAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function presentCampaignStats(
  row: Campaign,
  unfinished: { outstanding: number; deferred: number },
  engagement: CampaignEngagement,
): CampaignStatsResponse {
  return {
    id: row.id,
    status: row.status,
    recipients: row.recipientCount,
    sent: row.deliveredCount + row.failedCount,
    delivered: row.deliveredCount,
    failed: row.failedCount,
    skipped_erased: row.skippedErasedCount,
    skipped_unsubscribed: row.skippedUnsubscribedCount,
    skipped_bounced: row.skippedBouncedCount,
    skipped_complained: row.skippedComplainedCount,
    skipped_suppressed: row.skippedSuppressedCount,
    skipped_other: row.skippedOtherCount,
    // The ledger marks a recipient's first human open and click: the campaign's unique counts.
    opens: engagement.opens,
    unique_opens: row.openCount,
    machine_opens: engagement.machineOpens,
    clicks: engagement.clicks,
    unique_clicks: row.clickCount,
    machine_clicks: engagement.machineClicks,
    bounces: row.bounceCount,
    hard_bounces: row.bounceCount,
    soft_bounces: row.softBounceCount,
    complaints: row.complaintCount,
    unsubscribes: row.unsubscribeCount,
    open_rate: rate(row.openCount, row.deliveredCount),
    click_rate: rate(row.clickCount, row.deliveredCount),
    bounce_rate: rate(row.bounceCount, row.deliveredCount),
    complaint_rate: rate(row.complaintCount, row.deliveredCount),
    unsubscribe_rate: rate(row.unsubscribeCount, row.deliveredCount),
    cancelled: row.cancelledCount,
    conversions: engagement.conversions,
    revenue_cents: engagement.revenueCents,
    links: engagement.links.map((link) => ({
      url: link.url,
      clicks: link.clicks,
      unique_clicks: link.uniqueClicks,
      machine_clicks: link.machineClicks,
    })),
    outstanding: unfinished.outstanding,
    deferred: unfinished.deferred,
    percent: percent(row),
    started_at: row.startedAt?.toISOString() ?? null,
    finished_at: row.finishedAt?.toISOString() ?? null,
  };
}
