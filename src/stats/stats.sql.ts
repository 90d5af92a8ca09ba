// Every statement over the statistics tables (daily_stats, campaign_stats, campaign_links,
// campaign_link_clickers). pg text with $n parameters: they join whichever transaction
// records the event (runSql), a Prisma one or the send path's PgPool client. Each write
// statement is one row lock per table, taken last in the caller's transaction and always in
// the order campaign_stats → campaign_links → campaign_link_clickers → daily_stats.

import { addingUp } from '../platform/database/adding-up';

/** The daily counter columns, in the order COUNT_DAYS takes them. */
export const DAILY_COLUMNS = [
  'sent',
  'delivered',
  'opens',
  'unique_opens',
  'machine_opens',
  'clicks',
  'unique_clicks',
  'machine_clicks',
  'hard_bounces',
  'soft_bounces',
  'complaints',
  'unsubscribes',
  'revenue_cents',
] as const;
export type DailyColumn = (typeof DAILY_COLUMNS)[number];

/**
 * How many rows a day's counters are spread over. Every write lands in the row of its
 * connection's shard (backend pid modulo this), so send transactions on different pooled
 * connections rarely wait for each other's commit on a counter row; reads add the shards up.
 * One connection runs one transaction at a time, so a transaction's days, locked in sorted
 * order within one shard, cannot deadlock with another's.
 */
export const DAY_SHARDS = 16;

/** Adds to the days' counters. $1 account, $2 days (sorted), then one bigint array per column. */
export const COUNT_DAYS = `
  INSERT INTO daily_stats (account_id, day, shard, ${DAILY_COLUMNS.join(', ')})
  SELECT $1, d.day, (pg_backend_pid() % ${DAY_SHARDS})::smallint,
         ${DAILY_COLUMNS.map((c) => `d.${c}`).join(', ')}
    FROM unnest($2::date[], ${DAILY_COLUMNS.map((_, i) => `$${i + 3}::bigint[]`).join(', ')})
           AS d(day, ${DAILY_COLUMNS.join(', ')})
  ON CONFLICT (account_id, day, shard) DO UPDATE SET
    ${addingUp('daily_stats', DAILY_COLUMNS)}`;

/**
 * The days' part of a campaign's outcome write: counts the messages of the relation `sends`
 * (delivered, hard_bounce, soft_bounce) on the day, as COUNT_DAYS would count their `sent`,
 * `delivered` and `bounced` events. Nothing is written when there is nothing to count.
 */
export const countSendsPart = (p: { account: string; day: string; sends: string }) => `
  days_counted AS (
    INSERT INTO daily_stats (account_id, day, shard, sent, delivered, hard_bounces, soft_bounces)
    SELECT ${p.account}::uuid, ${p.day}::date, (pg_backend_pid() % ${DAY_SHARDS})::smallint,
           count(*), count(*) FILTER (WHERE delivered), count(*) FILTER (WHERE hard_bounce),
           count(*) FILTER (WHERE soft_bounce)
      FROM ${p.sends}
    HAVING count(*) > 0
    ON CONFLICT (account_id, day, shard) DO UPDATE SET
      ${addingUp('daily_stats', ['sent', 'delivered', 'hard_bounces', 'soft_bounces'])})`;

const CAMPAIGN_COUNTERS = [
  'opens',
  'clicks',
  'machine_opens',
  'machine_clicks',
  'conversions',
  'revenue_cents',
] as const;

/** Adds to a campaign's engagement counters. $1 campaign, $2 account, $3..$8 the amounts. */
export const COUNT_CAMPAIGN = `
  INSERT INTO campaign_stats (campaign_id, account_id, ${CAMPAIGN_COUNTERS.join(', ')})
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
  ON CONFLICT (campaign_id) DO UPDATE SET
    ${addingUp('campaign_stats', CAMPAIGN_COUNTERS)}`;

/**
 * A person's click on a campaign link: remembers who clicked it (first and last time), and
 * returns whether this was their first click on it. $1 campaign, $2 url hash, $3 subscriber,
 * $4 account.
 */
export const NOTE_CLICKER = `
  INSERT INTO campaign_link_clickers (campaign_id, url_hash, subscriber_id, account_id)
  VALUES ($1, $2, $3, $4)
  ON CONFLICT (campaign_id, url_hash, subscriber_id) DO UPDATE SET last_at = now()
  RETURNING (xmax = 0) AS first`;

/** Counts a click on a link. $1 campaign, $2 hash, $3 account, $4 url, $5 clicks, $6 unique, $7 machine. */
export const COUNT_LINK = `
  INSERT INTO campaign_links
         (campaign_id, url_hash, account_id, url, clicks, unique_clicks, machine_clicks)
  VALUES ($1, $2, $3, $4, $5, $6, $7)
  ON CONFLICT (campaign_id, url_hash) DO UPDATE SET
    ${addingUp('campaign_links', ['clicks', 'unique_clicks', 'machine_clicks'])}`;

/** The days of an account between two dates, inclusive. $1 account, $2 from, $3 to. */
export const DAYS_BETWEEN = `
  SELECT to_char(day, 'YYYY-MM-DD') AS day,
         ${DAILY_COLUMNS.map((c) => `sum(${c})::bigint::text AS ${c}`).join(', ')}
    FROM daily_stats
   WHERE account_id = $1 AND day BETWEEN $2::date AND $3::date
   GROUP BY day
   ORDER BY day`;

/** A campaign's engagement counters. $1 account, $2 campaign. */
export const CAMPAIGN_ENGAGEMENT = `
  SELECT opens, clicks, machine_opens, machine_clicks, conversions, revenue_cents::text
    FROM campaign_stats WHERE account_id = $1 AND campaign_id = $2::uuid`;

/** A campaign's most clicked links. $1 account, $2 campaign, $3 limit. */
export const CAMPAIGN_LINKS = `
  SELECT url, clicks, unique_clicks, machine_clicks FROM campaign_links
   WHERE account_id = $1 AND campaign_id = $2::uuid
   ORDER BY clicks DESC, unique_clicks DESC, url
   LIMIT $3`;

/**
 * The campaign a person clicked last, between $3 − $4 days and $3. $1 account, $2 subscriber.
 * Clicks in automation mail are on the hidden campaign of a send step, which is no campaign
 * a client can name or read: they are passed over.
 */
export const LAST_CLICKED_CAMPAIGN = `
  SELECT k.campaign_id::text FROM campaign_link_clickers k
    JOIN campaigns c ON c.id = k.campaign_id AND c.account_id = k.account_id
   WHERE k.account_id = $1 AND k.subscriber_id = $2::uuid AND c.automation_id IS NULL
     AND k.last_at <= $3::timestamptz AND k.last_at > $3::timestamptz - make_interval(days => $4)
   ORDER BY k.last_at DESC
   LIMIT 1`;

/**
 * Erasure: links whose URL carries the erased address (a merge field in a link) go, with who
 * clicked them. $1 account, $2 the address as it may appear (plain, percent-encoded).
 */
export const FORGET_LINKS_NAMING = `
  WITH gone AS (
    DELETE FROM campaign_links
     WHERE account_id = $1 AND EXISTS (
       SELECT 1 FROM unnest($2::text[]) AS f(form) WHERE strpos(lower(url), f.form) > 0)
    RETURNING campaign_id, url_hash)
  DELETE FROM campaign_link_clickers c USING gone
   WHERE c.campaign_id = gone.campaign_id AND c.url_hash = gone.url_hash`;
