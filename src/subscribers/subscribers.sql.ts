import { Prisma } from '../generated/prisma/client';
import type { AccountId } from '../platform/database/account-id';
import type { FeedbackKind } from '../message-refs/feedback-report';
import { SOFT_BOUNCE_LIMIT } from '../suppression/suppression-reason';
import { PROFILE_FIELDS, ProfileField } from './subscriber-fields';

// Every raw statement over the subscribers table. Only the subscribers module's repositories
// run them: SubscribersRepository (rows and profiles) and SubscriberStatisticsRepository
// (what happened to the mail sent to them). Profile writes go through Prisma's model API in
// SubscribersRepository.

function camel(column: string): string {
  return column.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** Every column of `subscribers`, aliased to the field names of Prisma's Subscriber type. */
export const ROW_COLUMNS = [
  'id',
  'account_id',
  'email',
  'email_normalized',
  ...PROFILE_FIELDS.map((field) => field.name),
  'imported_stats',
  'stat_sent',
  'stat_delivered',
  'stat_opens',
  'stat_clicks',
  'stat_hard_bounces',
  'stat_soft_bounces',
  'stat_revenue_cents',
  'last_sent_at',
  'last_open_at',
  'last_click_at',
  'soft_bounce_streak',
  'created_at',
  'updated_at',
]
  .map((column) => `${column} AS "${camel(column)}"`)
  .join(', ');

/** One keyset page, newest first. $1 account, $2 last id of the previous page or null, $3 limit. */
export const LIST_PAGE = `SELECT ${ROW_COLUMNS} FROM subscribers
  WHERE account_id = $1 AND ($2::uuid IS NULL OR id < $2::uuid)
  ORDER BY id DESC LIMIT $3`;

/** The rows of a chunk of campaign recipients. $1 account, $2 ids. */
export const BY_IDS = `SELECT * FROM subscribers WHERE account_id = $1 AND id = ANY($2::uuid[])`;

/** Someone followed an unsubscribe link: idempotent, and a no-op for an erased subscriber. */
/** A subscriber's status, its row locked until the transaction ends. */
export const lockStatus = (accountId: AccountId, id: string) => Prisma.sql`
  SELECT status FROM subscribers
   WHERE account_id = ${accountId}::uuid AND id = ${id}::uuid
     FOR UPDATE`;

export const unsubscribe = (accountId: AccountId, id: string) => Prisma.sql`
  UPDATE subscribers SET status = 'unsubscribed', updated_at = now()
   WHERE account_id = ${accountId}::uuid AND id = ${id}::uuid
     AND status <> 'unsubscribed'`;

/**
 * The recipients' part of an outcome write: counts each message of `sends` (subscriber_id,
 * delivered, hard_bounce, soft_bounce) on its subscriber (sent, delivered, bounces,
 * last_sent_at). A hard bounce, or the SOFT_BOUNCE_LIMIT-th soft bounce in a row, marks a
 * subscribed person bounced. Names `counted`: each address counted, with whether it must now
 * be suppressed. The locking subquery takes the row locks in id order before anything
 * changes, so concurrent campaigns cannot deadlock on them.
 */
export const countCampaignSendsPart = (p: { account: string; sends: string }) => `
  counted AS (
    UPDATE subscribers s
       SET stat_sent = s.stat_sent + 1,
           stat_delivered = s.stat_delivered + v.delivered::int,
           stat_hard_bounces = s.stat_hard_bounces + v.hard_bounce::int,
           stat_soft_bounces = s.stat_soft_bounces + v.soft_bounce::int,
           soft_bounce_streak = s.soft_bounce_streak + v.soft_bounce::int,
           status = CASE WHEN s.status = 'subscribed'
                          AND (v.hard_bounce OR (v.soft_bounce
                               AND s.soft_bounce_streak + 1 >= ${SOFT_BOUNCE_LIMIT}))
                         THEN 'bounced' ELSE s.status END,
           last_sent_at = now()
      FROM (SELECT id FROM subscribers
             WHERE account_id = ${p.account}::uuid AND id IN (SELECT subscriber_id FROM ${p.sends})
             ORDER BY id FOR UPDATE) locked,
           ${p.sends} v
     WHERE s.id = locked.id AND s.id = v.subscriber_id
    RETURNING s.email_normalized,
              (v.hard_bounce OR (v.soft_bounce AND s.soft_bounce_streak >= ${SOFT_BOUNCE_LIMIT}))
                AS suppress)`;

/**
 * A transactional message to this address was delivered: a part of its outcome write, which
 * counts it only when the relation `sent` holds a row (the send was recorded as this worker's).
 */
export const countTransactionalDeliveryPart = (p: {
  account: string;
  email: string;
  sent: string;
}) => `
  tx_counted AS (
    UPDATE subscribers
       SET stat_sent = stat_sent + 1, stat_delivered = stat_delivered + 1, last_sent_at = now()
     WHERE account_id = ${p.account}::uuid AND email_normalized = ${p.email}
       AND EXISTS (SELECT 1 FROM ${p.sent}))`;

/**
 * The relay refused a transactional message to this address: a hard (5xx) or soft bounce. A
 * hard bounce, or the SOFT_BOUNCE_LIMIT-th soft one in a row, marks a subscribed recipient
 * `bounced`; returns whether the soft-bounce streak reached the limit.
 */
export const countTransactionalBounce = (
  accountId: AccountId,
  emailNormalized: string,
  hard: boolean,
) => {
  const h = hard ? 1 : 0;
  return Prisma.sql`
    UPDATE subscribers
       SET stat_sent = stat_sent + 1, stat_hard_bounces = stat_hard_bounces + ${h},
           stat_soft_bounces = stat_soft_bounces + ${1 - h},
           soft_bounce_streak = soft_bounce_streak + ${1 - h},
           status = CASE WHEN status = 'subscribed'
                          AND (${h} = 1 OR soft_bounce_streak + 1 >= ${SOFT_BOUNCE_LIMIT})
                         THEN 'bounced' ELSE status END,
           last_sent_at = now()
     WHERE account_id = ${accountId}::uuid AND email_normalized = ${emailNormalized}
    RETURNING soft_bounce_streak >= ${SOFT_BOUNCE_LIMIT} AS suppress`;
};

/** Subscriber columns counting each open or click, and remembering the latest. */
export type EngagementKind = 'open' | 'click';
const ENGAGEMENT: Record<EngagementKind, { count: Prisma.Sql; last: Prisma.Sql }> = {
  // Fixed identifiers, never input: safe to splice with Prisma.raw.
  open: { count: Prisma.raw('stat_opens'), last: Prisma.raw('last_open_at') },
  click: { count: Prisma.raw('stat_clicks'), last: Prisma.raw('last_click_at') },
};

/**
 * Counts one open or click (every event, not only the first). It proves the mailbox works,
 * so soft bounces start counting anew.
 */
export const countEngagement = (kind: EngagementKind, accountId: AccountId, id: string) => {
  const { count, last } = ENGAGEMENT[kind];
  return Prisma.sql`
    UPDATE subscribers SET ${count} = ${count} + 1, ${last} = now(), soft_bounce_streak = 0
     WHERE account_id = ${accountId}::uuid AND id = ${id}::uuid`;
};

/** A conversion's revenue, on the subscriber's statistics (a refund is negative). */
export const addRevenue = (accountId: AccountId, id: string, cents: number) => Prisma.sql`
  UPDATE subscribers SET stat_revenue_cents = stat_revenue_cents + ${cents}::bigint
   WHERE account_id = ${accountId}::uuid AND id = ${id}::uuid`;

/**
 * A suppression entry was removed: the subscriber with that address goes back to
 * `subscribed` if its status is still the one the entry caused (`fromStatus`), and its
 * soft-bounce streak starts over. Returns whether the status changed.
 */
export const reactivate = (
  accountId: AccountId,
  emailNormalized: string,
  fromStatus: string | undefined,
) => Prisma.sql`
  UPDATE subscribers s
     SET status = CASE WHEN s.status = ${fromStatus ?? null} THEN 'subscribed' ELSE s.status END,
         soft_bounce_streak = 0, updated_at = now()
    FROM (SELECT id, status FROM subscribers
           WHERE account_id = ${accountId}::uuid AND email_normalized = ${emailNormalized}
             FOR UPDATE) before
   WHERE s.id = before.id
  RETURNING before.status = ${fromStatus ?? null} AS reactivated`;

/**
 * What a feedback report does to a subscriber: statistics, and the status Herald sets (only
 * ever away from `subscribed`; a complaint also overrides `unsubscribed`). Returns the streak
 * and address, so the caller decides on suppression.
 */
export const applyFeedback = (accountId: AccountId, id: string, kind: FeedbackKind) => Prisma.sql`
  UPDATE subscribers
     SET stat_hard_bounces = stat_hard_bounces + ${kind === 'hard_bounce' ? 1 : 0},
         stat_soft_bounces = stat_soft_bounces + ${kind === 'soft_bounce' ? 1 : 0},
         soft_bounce_streak = soft_bounce_streak + ${kind === 'soft_bounce' ? 1 : 0},
         status = CASE
           WHEN ${kind} = 'hard_bounce' AND status = 'subscribed' THEN 'bounced'
           WHEN ${kind} = 'soft_bounce' AND status = 'subscribed'
                AND soft_bounce_streak + 1 >= ${SOFT_BOUNCE_LIMIT} THEN 'bounced'
           WHEN ${kind} = 'complaint' AND status IN ('subscribed', 'unsubscribed') THEN 'complained'
           WHEN ${kind} = 'unsubscribe' AND status = 'subscribed' THEN 'unsubscribed'
           ELSE status END,
         updated_at = now()
   WHERE account_id = ${accountId}::uuid AND id = ${id}::uuid
  RETURNING soft_bounce_streak AS streak, email_normalized`;

// ---- bulk writes (batch upsert, CSV import): pg text on a PgPool transaction ----------------

/** How each kind of profile field is typed for jsonb_to_recordset and COPY. */
const PG_TYPES = {
  text: 'text',
  date: 'timestamptz',
  list: 'text[]',
  custom: 'jsonb',
  social: 'jsonb',
} as const satisfies Record<ProfileField['kind'], string>;
export type PgType = (typeof PG_TYPES)[ProfileField['kind']];

/** The profile columns a bulk write sets, with their types for jsonb_to_recordset and COPY. */
export const PROFILE: readonly (readonly [string, PgType])[] = [
  ['email', 'text'],
  ['email_normalized', 'text'],
  ...PROFILE_FIELDS.map((field) => [field.name, PG_TYPES[field.kind]] as const),
  ['imported_stats', 'jsonb'],
];

export const PROFILE_COLUMNS: readonly string[] = PROFILE.map(([column]) => column);
const RECORD_TYPE = `r(id uuid, ${PROFILE.map(([column, type]) => `${column} ${type}`).join(', ')})`;

/**
 * The subscribers with these normalised emails, locked for the rest of the transaction (in id
 * order, like every other multi-row lock on the table), with their profile columns under
 * Prisma's field names. Each email is looked up on its own in the (account, email) index: the
 * LIMIT keeps the planner from turning the lookups into a join. As `email_normalized = ANY(…)`,
 * or as a join, the planner, with no statistics yet on a table an import fills faster than
 * autovacuum analyses it, read every row of the account for each batch instead (60 ms per
 * 1,000 emails at 30,000 rows, growing with the table; 6 ms this way). $1 account,
 * $2 normalised emails.
 */
export const LOCK_BY_EMAILS = `SELECT id, ${PROFILE_COLUMNS.map((c) => `${c} AS "${camel(c)}"`).join(', ')}
  FROM subscribers
 WHERE id = ANY(ARRAY(
         SELECT found.id FROM unnest($2::text[]) AS wanted(email)
           CROSS JOIN LATERAL (SELECT s.id FROM subscribers s
                                WHERE s.account_id = $1 AND s.email_normalized = wanted.email
                                LIMIT 1) found))
 ORDER BY id FOR UPDATE`;

/** The columns of a COPY of new subscribers, in the order of its lines. */
export const COPY_NEW_COLUMNS: readonly string[] = ['id', 'account_id', ...PROFILE_COLUMNS];

/** New subscribers, one line each (COPY text format, COPY_NEW_COLUMNS). */
export const COPY_NEW = `COPY subscribers (${COPY_NEW_COLUMNS.join(', ')}) FROM STDIN`;

/** Every profile column of these subscribers, from a JSON array of whole rows. $1 account, $2 rows. */
export const UPDATE_PROFILES = `UPDATE subscribers s
   SET ${PROFILE_COLUMNS.map((c) => `${c} = r.${c}`).join(', ')}, updated_at = now()
  FROM jsonb_to_recordset($2::jsonb) AS ${RECORD_TYPE}
 WHERE s.account_id = $1 AND s.id = r.id`;

/**
 * One keyset page of an export, oldest first, optionally narrowed by a segment's filter (SQL
 * over `s`, built by the segments module). $1 account, $2 last id of the previous page or null,
 * $3 limit.
 */
export const exportPage = (
  filter: Prisma.Sql,
  accountId: AccountId,
  afterId: string | null,
  limit: number,
) =>
  Prisma.sql`SELECT s.* FROM subscribers s
   WHERE s.account_id = ${accountId}::uuid AND (${afterId}::uuid IS NULL OR s.id > ${afterId}::uuid)
     AND (${filter})
   ORDER BY s.id LIMIT ${limit}`;

/** The custom field keys used by the subscribers an export covers, sorted. */
export const customKeys = (filter: Prisma.Sql, accountId: AccountId, limit: number) =>
  Prisma.sql`SELECT DISTINCT k.key COLLATE "C" AS key
    FROM subscribers s, jsonb_object_keys(s.custom_fields) AS k(key)
   WHERE s.account_id = ${accountId}::uuid AND (${filter})
   ORDER BY 1 LIMIT ${limit}`;

// ---- staged bulk writes (CSV import): a batch COPY-ed into a temporary table, then decided
// and written by one statement ----------------------------------------------------------------

/**
 * A staged row: where it came from (`position`), the id it gets if new, its identity's erasure
 * hash, its email as written and normalised, then one column per profile field the item sets.
 * NULL means the item leaves that field alone (a blank cell); a present value is never NULL.
 */
export const STAGE: readonly (readonly [string, string])[] = [
  ['position', 'int'],
  ['id', 'uuid'],
  ['hash', 'text'],
  ['email', 'text'],
  ['email_normalized', 'text'],
  ...PROFILE_FIELDS.map((field) => [field.name, PG_TYPES[field.kind]] as const),
];
const STAGED_FIELDS = PROFILE_FIELDS.map((field) => field.name);

/**
 * The staging table: temporary, so private to the connection and never logged, and emptied at
 * every commit. Made when missing, on every batch: behind PgBouncer the next transaction may run
 * on another server connection.
 */
export const CREATE_STAGE = `CREATE TEMP TABLE IF NOT EXISTS subscriber_stage
  (${STAGE.map(([column, type]) => `${column} ${type}`).join(', ')}) ON COMMIT DELETE ROWS`;

/**
 * A batch's rows, one line each (COPY text format): position, id, hash, emails, then these
 * profile fields (names of PROFILE_FIELDS, never input), the others left NULL.
 */
export const copyStage = (fields: readonly string[]) => {
  const known = new Set<string>(STAGED_FIELDS);
  if (!fields.every((field) => known.has(field))) throw new Error('not profile fields');
  return `COPY subscriber_stage (${[...STAGE.slice(0, 5).map(([column]) => column), ...fields].join(', ')}) FROM STDIN`;
};

/** The erasure hashes of the staged rows, for the identity locks (a query over them). */
export const STAGED_HASHES = 'SELECT hash FROM subscriber_stage';

/** The staged rows at these positions, as a write's body would give them. $1 positions. */
export const STAGED_ROWS = `SELECT ${STAGE.map(([column]) => column).join(', ')}
  FROM subscriber_stage WHERE position = ANY($1::int[]) ORDER BY position`;

/** What a profile value is when a new subscriber's row is made without it. */
const NEW_ROW_EMPTY: Record<PgType, string> = {
  text: 'NULL',
  timestamptz: 'NULL',
  'text[]': `'{}'::text[]`,
  jsonb: `'{}'::jsonb`,
};
const emptyOf = (field: ProfileField) =>
  field.kind === 'social'
    ? `'[]'::jsonb`
    : field.kind === 'text' && field.empty !== undefined
      ? `'${field.empty}'`
      : NEW_ROW_EMPTY[PG_TYPES[field.kind]];

/** Whether staged row `d` changes field `f` of the subscriber found (`s.`): the writer's rules. */
const changes = (field: ProfileField) =>
  field.kind === 'custom'
    ? `(d.${field.name} IS NOT NULL AND s.${field.name} || d.${field.name} <> s.${field.name})`
    : `(d.${field.name} IS NOT NULL AND d.${field.name} IS DISTINCT FROM s.${field.name})`;

/**
 * Decides and writes a staged batch in one statement, by the bulk writer's rules, for rows whose
 * emails are all different (the caller keeps a repeated email for the writer, which applies
 * them in order). The caller holds the identity locks of every staged hash (taken in a statement
 * of its own, before this one's snapshot). Each row is:
 * - `erased`: its identity has a tombstone (a read of the erasure module's table, inside the one
 *   statement that needs it); nothing is written;
 * - `created`: no subscriber has the email; inserted with the table's defaults under its fields;
 * - `unchanged`: the subscriber exists and the mode is `create`, or nothing it sets differs
 *   (blank fields leave a value alone, custom fields are merged into the subscriber's);
 * - `updated`: the fields it sets are written, custom fields merged, `updated_at` stamped;
 * - `deferred`: left for the writer, which decides it in JavaScript: a row that sets `status`
 *   to `subscribed` on a subscriber that is not (the suppression list must be asked), or whose
 *   merged custom fields pass 100 keys or 8 KiB as PostgreSQL prints them (the limit is on the
 *   JSON JavaScript writes, 16 KiB, whose length PostgreSQL's text only bounds).
 * The existing rows are locked in id order, like every multi-row lock on the table; each email is
 * looked up on its own (LATERAL … LIMIT 1), as LOCK_BY_EMAILS explains. Answers one row: the
 * counts, the deferred positions, the erased hashes and the ids changed to `unsubscribed`.
 * $1 account, $2 mode ('upsert' | 'create').
 */
export const UPSERT_STAGED = `WITH staged AS (
  SELECT st.*, EXISTS (SELECT 1 FROM erased_identities e
                        WHERE e.account_id = $1 AND e.email_hash = st.hash) AS erased
    FROM subscriber_stage st),
found AS (
  SELECT s.* FROM subscribers s
   WHERE s.account_id = $1 AND s.id = ANY(ARRAY(
           SELECT f.id FROM staged st
             CROSS JOIN LATERAL (SELECT s2.id FROM subscribers s2
                                  WHERE s2.account_id = $1 AND s2.email_normalized = st.email_normalized
                                  LIMIT 1) f
            WHERE NOT st.erased))
   ORDER BY s.id FOR UPDATE),
decided AS (
  SELECT d.*, s.id AS found_id,
         CASE WHEN d.erased THEN 'erased'
              WHEN s.id IS NULL THEN 'created'
              WHEN $2 = 'create' THEN 'unchanged'
              WHEN d.status = 'subscribed' AND s.status <> 'subscribed' THEN 'deferred'
              WHEN d.custom_fields IS NOT NULL
                   AND ((SELECT count(*) FROM jsonb_object_keys(s.custom_fields || d.custom_fields)) > 100
                        OR octet_length((s.custom_fields || d.custom_fields)::text) > 8192) THEN 'deferred'
              WHEN d.email IS DISTINCT FROM s.email
                   OR ${PROFILE_FIELDS.map(changes).join('\n                   OR ')} THEN 'updated'
              ELSE 'unchanged' END AS outcome,
         d.status = 'unsubscribed' AND s.status <> 'unsubscribed' AS unsubscribes
    FROM staged d LEFT JOIN found s ON s.email_normalized = d.email_normalized),
inserted AS (
  INSERT INTO subscribers (id, account_id, email, email_normalized, ${STAGED_FIELDS.join(', ')}, imported_stats)
  SELECT d.id, $1, d.email, d.email_normalized,
         ${PROFILE_FIELDS.map((field) => `coalesce(d.${field.name}, ${emptyOf(field)})`).join(',\n         ')},
         '{}'::jsonb
    FROM decided d WHERE d.outcome = 'created'
  RETURNING 1),
updated AS (
  UPDATE subscribers s
     SET email = d.email,
         ${PROFILE_FIELDS.map((field) =>
           field.kind === 'custom'
             ? `${field.name} = s.${field.name} || coalesce(d.${field.name}, '{}'::jsonb)`
             : `${field.name} = coalesce(d.${field.name}, s.${field.name})`,
         ).join(',\n         ')},
         updated_at = now()
    FROM decided d
   WHERE d.outcome = 'updated' AND s.account_id = $1 AND s.id = d.found_id
  RETURNING 1)
SELECT count(*) FILTER (WHERE outcome = 'created')::int AS created,
       count(*) FILTER (WHERE outcome = 'updated')::int AS updated,
       count(*) FILTER (WHERE outcome = 'unchanged')::int AS unchanged,
       count(*) FILTER (WHERE outcome = 'erased')::int AS erased,
       coalesce(array_agg(position ORDER BY position) FILTER (WHERE outcome = 'deferred'), '{}')::int[] AS deferred,
       coalesce(array_agg(DISTINCT hash) FILTER (WHERE outcome = 'erased'), '{}')::text[] AS "erasedHashes",
       coalesce(array_agg(found_id::text) FILTER (WHERE outcome = 'updated' AND unsubscribes), '{}')::text[] AS unsubscribed,
       (SELECT count(*) FROM inserted)::int + (SELECT count(*) FROM updated)::int AS written
  FROM decided`;
