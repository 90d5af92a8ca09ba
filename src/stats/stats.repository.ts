import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { AccountId } from '../platform/database/account-id';
import type { ComposedStatement, Relation } from '../platform/database/composed-statement';
import { PrismaService } from '../platform/database/prisma.service';
import { runSql, SqlRunner } from '../platform/database/sql-runner';
import * as sql from './stats.sql';
import { DAILY_COLUMNS, DailyColumn } from './stats.sql';

/** Additions to one day's counters. */
export type DayCounts = Partial<Record<DailyColumn, number>>;

/** Additions to one campaign's engagement counters. */
export interface CampaignCounts {
  opens?: number;
  clicks?: number;
  machineOpens?: number;
  machineClicks?: number;
  conversions?: number;
  revenueCents?: number;
}

/** A day's counters as read back. */
export type DayRow = { day: string } & Record<DailyColumn, number>;

export interface CampaignEngagement {
  opens: number;
  clicks: number;
  machineOpens: number;
  machineClicks: number;
  conversions: number;
  revenueCents: number;
  links: { url: string; clicks: number; uniqueClicks: number; machineClicks: number }[];
}

/** The longest URL kept per link: a link is for people to recognise, not to follow. */
const MAX_URL = 2048;

/**
 * The only writer of the statistics tables (daily_stats, campaign_stats, campaign_links,
 * campaign_link_clickers). Writes join the caller's transaction; the SQL is in stats.sql.ts.
 */
@Injectable()
export class StatsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * `alongside`: another write (a WITH item, its parameters numbered after this statement's)
   * made by the same statement, to spare the transaction a round trip.
   */
  async countDays(
    db: SqlRunner,
    accountId: AccountId,
    days: Map<string, DayCounts>,
    alongside?: (first: number) => { withItem: string; params: unknown[] },
  ) {
    if (days.size === 0) return;
    // Sorted, so two transactions touching the same days lock them in the same order.
    const sorted = [...days.keys()].sort();
    const params: unknown[] = [
      accountId,
      sorted,
      ...DAILY_COLUMNS.map((column) => sorted.map((day) => days.get(day)![column] ?? 0)),
    ];
    const other = alongside?.(params.length + 1);
    const text = other ? `WITH ${other.withItem} ${sql.COUNT_DAYS}` : sql.COUNT_DAYS;
    await runSql(db, text, other ? [...params, ...other.params] : params);
  }

  /** Adds the days' part of a campaign's outcome write to `statement` (see countSendsPart). */
  addSendCounts(
    statement: ComposedStatement,
    accountId: AccountId,
    day: string,
    sends: Relation<'delivered' | 'hard_bounce' | 'soft_bounce'>,
  ) {
    statement.with(
      sql.countSendsPart({
        account: statement.param(accountId),
        day: statement.param(day),
        sends: sends.name,
      }),
    );
  }

  async countCampaign(db: SqlRunner, accountId: AccountId, campaignId: string, c: CampaignCounts) {
    await runSql(db, sql.COUNT_CAMPAIGN, [
      campaignId,
      accountId,
      c.opens ?? 0,
      c.clicks ?? 0,
      c.machineOpens ?? 0,
      c.machineClicks ?? 0,
      c.conversions ?? 0,
      c.revenueCents ?? 0,
    ]);
  }

  /**
   * A click on a campaign link. A person's click remembers who clicked (for unique clicks and
   * the last-click credit of conversions); returns whether it was their first on this link.
   */
  async countLinkClick(
    db: SqlRunner,
    accountId: AccountId,
    campaignId: string,
    subscriberId: string,
    url: string,
    machine: boolean,
  ): Promise<boolean> {
    const kept = url.slice(0, MAX_URL);
    const hash = createHash('sha256').update(kept).digest('base64url');
    let first = false;
    if (!machine) {
      const [row] = await runSql<{ first: boolean }>(db, sql.NOTE_CLICKER, [
        campaignId,
        hash,
        subscriberId,
        accountId,
      ]);
      first = row?.first === true;
    }
    await runSql(db, sql.COUNT_LINK, [
      campaignId,
      hash,
      accountId,
      kept,
      machine ? 0 : 1,
      first ? 1 : 0,
      machine ? 1 : 0,
    ]);
    return first;
  }

  async days(accountId: AccountId, from: string, to: string): Promise<DayRow[]> {
    const rows = await runSql<Record<string, string>>(this.prisma, sql.DAYS_BETWEEN, [
      accountId,
      from,
      to,
    ]);
    return rows.map((row) => {
      const day = { day: row.day } as DayRow;
      for (const column of DAILY_COLUMNS) day[column] = Number(row[column]);
      return day;
    });
  }

  async campaignEngagement(
    accountId: AccountId,
    campaignId: string,
    linkLimit: number,
  ): Promise<CampaignEngagement> {
    const [counts] = await runSql<Record<string, number | string>>(
      this.prisma,
      sql.CAMPAIGN_ENGAGEMENT,
      [accountId, campaignId],
    );
    const links = await runSql<{
      url: string;
      clicks: number;
      unique_clicks: number;
      machine_clicks: number;
    }>(this.prisma, sql.CAMPAIGN_LINKS, [accountId, campaignId, linkLimit]);
    return {
      opens: Number(counts?.opens ?? 0),
      clicks: Number(counts?.clicks ?? 0),
      machineOpens: Number(counts?.machine_opens ?? 0),
      machineClicks: Number(counts?.machine_clicks ?? 0),
      conversions: Number(counts?.conversions ?? 0),
      revenueCents: Number(counts?.revenue_cents ?? 0),
      links: links.map((link) => ({
        url: link.url,
        clicks: Number(link.clicks),
        uniqueClicks: Number(link.unique_clicks),
        machineClicks: Number(link.machine_clicks),
      })),
    };
  }

  async lastClickedCampaign(
    db: SqlRunner,
    accountId: AccountId,
    subscriberId: string,
    before: Date,
    days: number,
  ): Promise<string | null> {
    const [row] = await runSql<{ campaign_id: string }>(db, sql.LAST_CLICKED_CAMPAIGN, [
      accountId,
      subscriberId,
      before.toISOString(),
      days,
    ]);
    return row?.campaign_id ?? null;
  }

  async forgetLinksNaming(db: SqlRunner, accountId: AccountId, emailNormalized: string) {
    const forms = [
      ...new Set([emailNormalized, encodeURIComponent(emailNormalized).toLowerCase()]),
    ];
    await runSql(db, sql.FORGET_LINKS_NAMING, [accountId, forms]);
  }
}
