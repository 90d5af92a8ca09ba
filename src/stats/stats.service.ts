import { Injectable } from '@nestjs/common';
import type { AccountId } from '../platform/database/account-id';
import type { SqlRunner } from '../platform/database/sql-runner';
import { DAILY_COLUMNS, DailyColumn } from './stats.sql';
import { CampaignEngagement, DayRow, StatsRepository } from './stats.repository';

export type { CampaignEngagement } from './stats.repository';

/** Links listed in a campaign's stats, the most clicked first. */
const LINKS_LISTED = 100;

export type DayTotals = Record<DailyColumn, number>;

/** What other modules read of the statistics. */
@Injectable()
export class StatsService {
  constructor(private readonly stats: StatsRepository) {}

  /** Every day from `from` to `to` (UTC, inclusive), zeros where nothing happened, and totals. */
  async days(accountId: AccountId, from: string, to: string) {
    const rows = new Map((await this.stats.days(accountId, from, to)).map((r) => [r.day, r]));
    const daily: DayRow[] = [];
    const totals = Object.fromEntries(DAILY_COLUMNS.map((c) => [c, 0])) as DayTotals;
    for (let day = from; day <= to; day = nextDay(day)) {
      const row = rows.get(day) ?? { day, ...zeros() };
      daily.push(row);
      for (const column of DAILY_COLUMNS) totals[column] += row[column];
    }
    return { daily, totals };
  }

  campaignEngagement(accountId: AccountId, campaignId: string): Promise<CampaignEngagement> {
    return this.stats.campaignEngagement(accountId, campaignId, LINKS_LISTED);
  }

  /** The campaign a person's last click (a person's, not a scanner's) within `days` was on. */
  lastClickedCampaign(
    db: SqlRunner,
    accountId: AccountId,
    subscriberId: string,
    before: Date,
    days: number,
  ): Promise<string | null> {
    return this.stats.lastClickedCampaign(db, accountId, subscriberId, before, days);
  }
}

function zeros(): DayTotals {
  return Object.fromEntries(DAILY_COLUMNS.map((c) => [c, 0])) as DayTotals;
}

function nextDay(day: string): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + 1);
  return date.toISOString().slice(0, 10);
}
