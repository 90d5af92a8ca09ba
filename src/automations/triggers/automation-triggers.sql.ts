import { Prisma } from '../../generated/prisma/client';
import type { AccountId } from '../../platform/database/account-id';

// The trigger sweeps' statements: who was created, who entered a segment, whose date is due.
// They read subscribers (never write them) and write automation_segment_members.

/**
 * Subscribers of the account created since `since` (and with ids from `floorId`, the UUIDv7
 * of a moment a little earlier, so the primary key bounds the walk) that this automation has
 * not enrolled for their creation yet.
 */
export const createdSince = (
  accountId: AccountId,
  automationId: string,
  floorId: string,
  since: Date,
  limit: number,
) => Prisma.sql`
  SELECT s.id::text FROM subscribers s
   WHERE s.account_id = ${accountId}::uuid AND s.id >= ${floorId}::uuid
     AND s.created_at >= ${since}
     AND NOT EXISTS (SELECT 1 FROM automation_runs r
                      WHERE r.automation_id = ${automationId}::uuid AND r.subscriber_id = s.id
                        AND r.trigger_key = 'created')
   ORDER BY s.id
   LIMIT ${limit}`;

/** The segment's members of now become the automation's baseline: none of them has entered. */
export const baselineMembers = (
  accountId: AccountId,
  automationId: string,
  audience: Prisma.Sql,
) => Prisma.sql`
  WITH cleared AS (
    DELETE FROM automation_segment_members WHERE automation_id = ${automationId}::uuid)
  INSERT INTO automation_segment_members (automation_id, subscriber_id)
  SELECT ${automationId}::uuid, s.id FROM subscribers s
   WHERE s.account_id = ${accountId}::uuid AND ${audience}
  ON CONFLICT DO NOTHING`;

/**
 * Who came to match the segment since the last sweep (returned), and who stopped matching
 * (forgotten, so that coming back is entering again). One statement: both sides see one
 * snapshot of the subscribers.
 */
export const segmentEntries = (
  accountId: AccountId,
  automationId: string,
  audience: Prisma.Sql,
) => Prisma.sql`
  WITH matched AS MATERIALIZED (
    SELECT s.id FROM subscribers s WHERE s.account_id = ${accountId}::uuid AND ${audience}
  ), gone AS (
    DELETE FROM automation_segment_members m
     WHERE m.automation_id = ${automationId}::uuid
       AND NOT EXISTS (SELECT 1 FROM matched x WHERE x.id = m.subscriber_id)
  ), entered AS (
    INSERT INTO automation_segment_members (automation_id, subscriber_id)
    SELECT ${automationId}::uuid, id FROM matched
    ON CONFLICT DO NOTHING
    RETURNING subscriber_id
  )
  SELECT subscriber_id::text FROM entered`;

/** The month and day a date trigger reads from subscriber `s`, null when there is none. */
function monthDay(field: string): { month: Prisma.Sql; day: Prisma.Sql } {
  if (field === 'birthdate') {
    return {
      month: Prisma.sql`extract(month FROM s.birthdate AT TIME ZONE 'UTC')::int`,
      day: Prisma.sql`extract(day FROM s.birthdate AT TIME ZONE 'UTC')::int`,
    };
  }
  const key = field.startsWith('custom_fields.') ? field.slice('custom_fields.'.length) : field;
  // Only a well-formed YYYY-MM-DD counts; anything else in the field is no date.
  const value = Prisma.sql`(CASE WHEN s.custom_fields ->> ${key}
      ~ '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$' THEN s.custom_fields ->> ${key} END)`;
  return {
    month: Prisma.sql`substr(${value}, 6, 2)::int`,
    day: Prisma.sql`substr(${value}, 9, 2)::int`,
  };
}

/** One pass of an automation's date trigger: whose date is due as of `now`, at most `limit`. */
export interface DateSweep {
  automationId: string;
  trigger: { field: string; offsetDays: number; at: string };
  now: Date;
  /** The automation's activation: a date that fell due before it enrols nobody. */
  since: Date;
  limit: number;
}

/**
 * Subscribers whose yearly date fell due within the last day as of `now`, at `at` in their
 * time zone (UTC when they have none or one PostgreSQL does not know), `offsetDays` from the
 * anniversary, and not before `since` (activation): with the year of the anniversary, which
 * keys the run, so one year's date never enrols twice. The anniversary's day is clamped to the
 * month's length, so 29 February falls on 28 February in other years. Years either side of
 * now's are looked at, for offsets that cross a new year.
 */
export const datesDue = (
  accountId: AccountId,
  { automationId, trigger, now, since, limit }: DateSweep,
) => {
  const { month, day } = monthDay(trigger.field);
  return Prisma.sql`
    WITH zones AS MATERIALIZED (SELECT name FROM pg_timezone_names),
    people AS (
      SELECT s.id, ${month} AS m, ${day} AS d,
             coalesce((SELECT z.name FROM zones z WHERE z.name = s.timezone LIMIT 1), 'UTC') AS zone
        FROM subscribers s
       WHERE s.account_id = ${accountId}::uuid
    ), due AS (
      SELECT p.id, y.year,
             ((make_date(y.year, p.m, least(p.d, extract(day FROM
                 make_date(y.year, p.m, 1) + interval '1 month' - interval '1 day')::int))
               + ${trigger.offsetDays}::int) + ${trigger.at}::time) AT TIME ZONE p.zone AS fires_at
        FROM people p
       CROSS JOIN LATERAL generate_series(
               extract(year FROM ${now}::timestamptz AT TIME ZONE p.zone)::int - 1,
               extract(year FROM ${now}::timestamptz AT TIME ZONE p.zone)::int + 1) AS y(year)
       WHERE p.m IS NOT NULL AND p.d IS NOT NULL
    )
    SELECT d.id::text AS subscriber_id, d.year
      FROM due d
     WHERE d.fires_at <= ${now}::timestamptz
       AND d.fires_at > ${now}::timestamptz - interval '1 day'
       AND d.fires_at >= ${since}::timestamptz
       AND NOT EXISTS (SELECT 1 FROM automation_runs r
                        WHERE r.automation_id = ${automationId}::uuid AND r.subscriber_id = d.id
                          AND r.trigger_key = 'date:' || d.year)
     LIMIT ${limit}`;
};

export const forgetMember = (subscriberId: string) => Prisma.sql`
  DELETE FROM automation_segment_members WHERE subscriber_id = ${subscriberId}::uuid`;
