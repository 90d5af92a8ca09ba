// Every statement over messages and message_events, run only by MessagesRepository (and the
// campaign part, which joins the campaign's composed outcome write). pg text with $n
// placeholders, so each runs on Prisma's transactions and on PgPool clients alike.

/** Statuses in the order a message moves through them: an event moves it only forward. */
export const STATUS_ORDER = [
  'queued',
  'deferred',
  'sent',
  'delivered',
  'failed',
  'bounced',
  'complained',
] as const;

const RANKS = `ARRAY[${STATUS_ORDER.map((s) => `'${s}'`).join(',')}]::text[]`;

/** One message, as the API reads it; the columns every read selects. */
const COLUMNS = `
  m.id::text, m.header_message_id, m.source, m.campaign_id::text, m.automation_id::text,
  m.automation_run_id::text, m.subscriber_id::text, m.recipient, m.from_address, m.subject,
  m.status, m.created_at`;

/**
 * A message as its sender records it. $1 account, $2 id, $3 source, $4 campaign,
 * $5 subscriber, $6 automation, $7 automation run, $8 recipient, $9 recipient hash, $10 from,
 * $11 subject, $12 Message-ID header, $13 status. A retried recording writes nothing twice.
 */
export const INSERT_MESSAGE = `
  INSERT INTO messages (id, account_id, source, campaign_id, subscriber_id, automation_id,
                        automation_run_id, recipient, recipient_hash, from_address, subject,
                        header_message_id, status)
  VALUES ($2, $1, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
  ON CONFLICT (id) DO NOTHING`;

/**
 * INSERT_MESSAGE as a part of a composed write (`log_recorded`): written only when the relation
 * `when` holds a row (the sender's own row for the message).
 */
export const insertMessagePart = (p: {
  account: string;
  id: string;
  source: string;
  campaign: string;
  subscriber: string;
  automation: string;
  automationRun: string;
  recipient: string;
  recipientHash: string;
  from: string;
  subject: string;
  header: string;
  status: string;
  when: string;
}) => `
  log_recorded AS (
    INSERT INTO messages (id, account_id, source, campaign_id, subscriber_id, automation_id,
                          automation_run_id, recipient, recipient_hash, from_address, subject,
                          header_message_id, status)
    SELECT ${p.id}::uuid, ${p.account}::uuid, ${p.source}, ${p.campaign}::uuid,
           ${p.subscriber}::uuid, ${p.automation}::uuid, ${p.automationRun}::uuid,
           ${p.recipient}, ${p.recipientHash}, ${p.from}, ${p.subject}, ${p.header}, ${p.status}
     WHERE EXISTS (SELECT 1 FROM ${p.when})
    ON CONFLICT (id) DO NOTHING)`;

/**
 * Events appended to messages of the account, found by id or, for a campaign's, by
 * (campaign, subscriber); events of messages not in the log (sent before it, or gone with
 * retention) are dropped. A status-making event moves the message's status forward only
 * (STATUS_ORDER): a late `delivered` never hides a bounce. Parallel arrays from $2:
 * message ids, campaign ids, subscriber ids, types, SMTP codes, reasons, urls, machine flags.
 */
export const APPEND_EVENTS = `
  WITH v AS (
    SELECT * FROM unnest($2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::int[], $7::text[],
                         $8::text[], $9::bool[]) WITH ORDINALITY
             AS v(message_id, campaign_id, subscriber_id, type, smtp_code, reason, url, machine, ord)
  ),
  found AS (
    SELECT m.id, m.status, v.type, v.smtp_code, v.reason, v.url, v.machine, v.ord
      FROM v
      JOIN messages m
        ON m.account_id = $1
       AND m.id = coalesce(v.message_id,
                           (SELECT c.id FROM messages c
                             WHERE c.source IN ('campaign', 'automation')
                               AND c.campaign_id = v.campaign_id
                               AND c.subscriber_id = v.subscriber_id))
  ),
  appended AS (
    INSERT INTO message_events (message_id, type, smtp_code, reason, url, machine)
    SELECT id, type, smtp_code, reason, url, machine FROM found ORDER BY ord
  )
  UPDATE messages m
     SET status = s.type
    FROM (SELECT DISTINCT ON (id) id, type FROM found
           WHERE array_position(${RANKS}, type) IS NOT NULL
           ORDER BY id, array_position(${RANKS}, type) DESC) s
   WHERE m.id = s.id AND m.account_id = $1
     AND array_position(${RANKS}, s.type) > array_position(${RANKS}, m.status)`;

/**
 * APPEND_EVENTS for one message, as a part of its outcome write: only when the relation
 * `when` holds a row (the outcome was recorded). Parallel arrays: types, SMTP codes, reasons.
 */
export const messageEventsPart = (p: {
  account: string;
  message: string;
  types: string;
  codes: string;
  reasons: string;
  when: string;
}) => `
  log_found AS (
    SELECT m.id, m.status FROM messages m
     WHERE m.account_id = ${p.account}::uuid AND m.id = ${p.message}::uuid
       AND EXISTS (SELECT 1 FROM ${p.when})),
  log_appended AS (
    INSERT INTO message_events (message_id, type, smtp_code, reason)
    SELECT f.id, v.type, v.smtp_code, v.reason
      FROM log_found f,
           unnest(${p.types}::text[], ${p.codes}::int[], ${p.reasons}::text[]) WITH ORDINALITY
             AS v(type, smtp_code, reason, ord)
     ORDER BY v.ord),
  log_moved AS (
    UPDATE messages m
       SET status = s.type
      FROM log_found f,
           (SELECT type FROM unnest(${p.types}::text[]) AS t(type)
             WHERE array_position(${RANKS}, type) IS NOT NULL
             ORDER BY array_position(${RANKS}, type) DESC LIMIT 1) s
     WHERE m.id = f.id AND m.account_id = ${p.account}::uuid
       AND array_position(${RANKS}, s.type) > array_position(${RANKS}, f.status))`;

/** Placeholders of the campaign part of an outcome write (see campaignMessagesPart). */
export interface CampaignPartParams {
  account: string;
  campaign: string;
  /** Parallel arrays: subscriber ids, new message ids, recipients, hashes, subjects, Message-IDs, replies. */
  subscribers: string;
  ids: string;
  recipients: string;
  hashes: string;
  subjects: string;
  headers: string;
  replies: string;
}

/**
 * The message log's part of a campaign's outcome write: one message per row the ledger part
 * wrote (`logged`: subscriber_id, status, skip_reason, smtp_code), and the events its
 * outcome makes. A deferred message already in the log gets its new status and events (the
 * partial unique index on (campaign_id, subscriber_id) finds it). Erased and cancelled skips
 * make no message: they never were one. Reads `logged` only, so an outcome the ledger did not
 * write (reported twice, or by a run whose claim was taken over) logs nothing.
 */
export const campaignMessagesPart = (p: CampaignPartParams, logged: string) => `
  log_campaign AS (
    -- An automation's send step is a hidden campaign: its messages are the automation's, each
    -- of the run whose entry the step campaign serves.
    SELECT c.from_address, c.automation_id, s.generation
      FROM campaigns c
      LEFT JOIN automation_step_campaigns s ON s.campaign_id = c.id
     WHERE c.id = ${p.campaign}::uuid
  ),
  log_values AS (
    SELECT * FROM unnest(${p.subscribers}::uuid[], ${p.ids}::uuid[], ${p.recipients}::text[],
                         ${p.hashes}::text[], ${p.subjects}::text[], ${p.headers}::text[],
                         ${p.replies}::text[])
             AS v(subscriber_id, id, recipient, recipient_hash, subject, header_message_id, reply)
  ),
  log_rows AS (
    SELECT v.*, l.smtp_code,
           CASE
             WHEN l.status = 'sent' THEN 'delivered'
             WHEN l.status = 'deferred' THEN 'deferred'
             WHEN l.status = 'skipped' THEN 'suppressed'
             WHEN l.smtp_code IS NOT NULL THEN 'bounced'
             ELSE 'failed'
           END AS status
      FROM ${logged} l JOIN log_values v ON v.subscriber_id = l.subscriber_id
     WHERE l.status <> 'skipped' OR l.skip_reason NOT IN ('erased', 'cancelled')
  ),
  logged_messages AS (
    INSERT INTO messages (id, account_id, source, campaign_id, subscriber_id, automation_id,
                          automation_run_id, recipient, recipient_hash, from_address, subject,
                          header_message_id, status)
    SELECT r.id, ${p.account}::uuid,
           CASE WHEN lc.automation_id IS NULL THEN 'campaign' ELSE 'automation' END,
           ${p.campaign}::uuid, r.subscriber_id, lc.automation_id,
           (SELECT ar.id FROM automation_runs ar
             WHERE ar.automation_id = lc.automation_id AND ar.subscriber_id = r.subscriber_id
               AND ar.entry = lc.generation),
           r.recipient, r.recipient_hash, lc.from_address, r.subject, r.header_message_id,
           r.status
      FROM log_rows r CROSS JOIN log_campaign lc
    ON CONFLICT (campaign_id, subscriber_id) WHERE source IN ('campaign', 'automation')
    DO UPDATE SET status = excluded.status
    RETURNING id, subscriber_id
  ),
  logged_events AS (
    INSERT INTO message_events (message_id, type, smtp_code, reason)
    SELECT m.id, e.type,
           CASE e.type WHEN 'delivered' THEN 250 WHEN 'bounced' THEN r.smtp_code
                       WHEN 'deferred' THEN r.smtp_code END,
           CASE WHEN e.type = 'sent' THEN NULL ELSE r.reply END
      FROM logged_messages m
      JOIN log_rows r ON r.subscriber_id = m.subscriber_id
     CROSS JOIN LATERAL unnest(CASE r.status
                                 WHEN 'delivered' THEN ARRAY['sent', 'delivered']
                                 WHEN 'bounced' THEN ARRAY['sent', 'bounced']
                                 WHEN 'failed' THEN ARRAY['failed']
                                 WHEN 'deferred' THEN ARRAY['deferred']
                                 ELSE ARRAY[]::text[]
                               END) WITH ORDINALITY AS e(type, ord)
     ORDER BY m.id, e.ord
  )`;

/**
 * A message with its events, oldest first, in one round trip (the events as a JSON array):
 * the message by primary key, its events by the range of (message_id, seq) they fill.
 * $1 account, $2 id, $3 oldest creation kept.
 */
export const GET_MESSAGE = `
  SELECT ${COLUMNS},
         (SELECT coalesce(json_agg(json_build_object(
                    'type', e.type, 'at', e.at, 'smtp_code', e.smtp_code, 'reason', e.reason,
                    'url', e.url, 'machine', e.machine) ORDER BY e.at, e.seq), '[]')
            FROM message_events e WHERE e.message_id = m.id) AS events
    FROM messages m
   WHERE m.account_id = $1 AND m.id = $2 AND m.created_at > $3`;

/**
 * The name GET_MESSAGE is prepared under where named statements are on: parsing and planning
 * it cost PostgreSQL four times what running it does, and its plan (two primary-key lookups)
 * is the same whatever the values, so the generic plan PostgreSQL settles on is the right one.
 */
export const GET_MESSAGE_NAME = 'messages_get';

/** The filters of a list, each optional; see listMessages. */
export interface ListFilters {
  recipientHash?: string;
  status?: string;
  source?: string;
  campaignId?: string;
  automationId?: string;
  since?: Date;
  until?: Date;
}

/**
 * A keyset page over (created_at, id), newest first, after the message `afterId` (its
 * position is read from its row). Returns the text and its values.
 */
export function listMessages(
  accountId: string,
  keptAfter: Date,
  filters: ListFilters,
  limit: number,
  afterId: string | undefined,
): { text: string; values: unknown[] } {
  const values: unknown[] = [accountId, keptAfter];
  const p = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const where = ['m.account_id = $1', 'm.created_at > $2'];
  if (filters.recipientHash !== undefined)
    where.push(`m.recipient_hash = ${p(filters.recipientHash)}`);
  if (filters.status !== undefined) where.push(`m.status = ${p(filters.status)}`);
  if (filters.source !== undefined) where.push(`m.source = ${p(filters.source)}`);
  if (filters.campaignId !== undefined)
    where.push(`m.campaign_id = ${p(filters.campaignId)}::uuid`);
  if (filters.automationId !== undefined) {
    where.push(`m.automation_id = ${p(filters.automationId)}::uuid`);
  }
  if (filters.since !== undefined) where.push(`m.created_at >= ${p(filters.since)}`);
  if (filters.until !== undefined) where.push(`m.created_at <= ${p(filters.until)}`);
  if (afterId !== undefined) {
    where.push(`(m.created_at, m.id) < (SELECT a.created_at, a.id FROM messages a
                                        WHERE a.account_id = $1 AND a.id = ${p(afterId)}::uuid)`);
  }
  const text = `
    SELECT ${COLUMNS} FROM messages m
     WHERE ${where.join(' AND ')}
     ORDER BY m.created_at DESC, m.id DESC
     LIMIT ${p(limit)}`;
  return { text, values };
}

/**
 * Erasure: the identity's messages (to its address, or to its subscriber) keep no address, no
 * subject and no hash, and their events lose the texts that may quote the address (SMTP
 * replies, clicked links). $1 account, $2 erasure hash, $3 subscriber id (or null).
 */
export const ERASE_MESSAGES = `
  WITH erased AS (
    UPDATE messages
       SET recipient = NULL, subject = NULL, recipient_hash = NULL
     WHERE account_id = $1
       AND (recipient_hash = $2 OR (subscriber_id = $3::uuid AND recipient IS NOT NULL))
    RETURNING id
  )
  UPDATE message_events e SET reason = NULL, url = NULL
    FROM erased WHERE e.message_id = erased.id AND (e.reason IS NOT NULL OR e.url IS NOT NULL)`;

/**
 * Retention, one bounded batch: messages (and then their events) whose UUIDv7 id was made
 * before $1, at most $2 rows, found by primary-key range. Returns how many went.
 */
export const DELETE_EXPIRED_EVENTS = `
  DELETE FROM message_events
   WHERE ctid = ANY(ARRAY(SELECT ctid FROM message_events WHERE message_id < $1 LIMIT $2))`;

export const DELETE_EXPIRED_MESSAGES = `
  DELETE FROM messages
   WHERE ctid = ANY(ARRAY(SELECT ctid FROM messages WHERE id < $1 LIMIT $2))`;
