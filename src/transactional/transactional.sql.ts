import { Prisma } from '../generated/prisma/client';
import type { AccountId } from '../platform/database/account-id';

// Every raw statement of the transactional module: transactional_messages (run only by
// TransactionalMessagesRepository) and idempotency_keys (only by IdempotencyKeysRepository).

/** The error a message ends with when its recipient was erased before it went out. */
export const ERASED = 'The recipient was erased before the message was sent.';

const seconds = (ms: number) => ms / 1000;

// --- transactional_messages ------------------------------------------------------------------

/**
 * The worker's claim: only a queued message, or one whose claim lapsed (its worker presumed
 * dead), moves to `sending`, under a lease of `leaseMs`; a scrubbed message (erased recipient)
 * never does. `attempts` counts claims: the number returned is this claim's fencing token.
 * `claimedAt` is the database's clock, to judge the retry horizon by.
 */
export const claimMessage = (accountId: AccountId, id: string, leaseMs: number) => Prisma.sql`
  UPDATE transactional_messages
  SET status = 'sending', claimed_at = now(), attempts = attempts + 1, updated_at = now(),
      lease_until = now() + make_interval(secs => ${seconds(leaseMs)})
  WHERE account_id = ${accountId}::uuid AND id = ${id}::uuid AND to_address IS NOT NULL
    AND (status = 'queued' OR (status = 'sending' AND lease_until < now()))
  RETURNING id, account_id AS "accountId", recipient_hash AS "recipientHash",
    to_address AS "toAddress", from_address AS "fromAddress", subject, html, text, mime, attempts,
    claimed_at AS "claimedAt", deferred_since AS "deferredSince"`;

/**
 * The message while this worker's claim holds it: still sending, and still on the attempt
 * (`epoch`) the claim counted. Renewing, releasing and deferring are fenced on it.
 */
const heldByClaim = (accountId: AccountId, id: string, epoch: number) =>
  Prisma.sql`account_id = ${accountId}::uuid AND id = ${id}::uuid
    AND status = 'sending' AND attempts = ${epoch}`;

/** Back to the queue with `error`; failed instead, as erased, if the recipient was erased. */
const requeuedUnlessErased = (error: string) => Prisma.sql`
  status = (CASE WHEN scrubbed_at IS NULL THEN 'queued' ELSE 'failed' END)::transactional_status,
  error = CASE WHEN scrubbed_at IS NULL THEN ${error} ELSE ${ERASED} END`;

/** How long the claim on a message has left (ms), while it is being sent. */
export const leaseRemaining = (accountId: AccountId, id: string) => Prisma.sql`
  SELECT (extract(epoch FROM lease_until - now()) * 1000)::float8 AS "remainingMs"
  FROM transactional_messages
  WHERE account_id = ${accountId}::uuid AND id = ${id}::uuid AND status = 'sending'`;

/** A claim's lease renewed; no row when the claim is no longer this worker's (`attempts`). */
export const renewLease = (accountId: AccountId, id: string, epoch: number, leaseMs: number) =>
  Prisma.sql`
  UPDATE transactional_messages
  SET lease_until = now() + make_interval(secs => ${seconds(leaseMs)})
  WHERE ${heldByClaim(accountId, id, epoch)}`;

/**
 * A part of a composed write: the new message's row (`tx_created`), inserted only when none of
 * the relations `unless` holds a row (an erased or suppressed recipient).
 */
export const createMessagePart = (p: {
  id: string;
  account: string;
  apiKey: string;
  template: string;
  recipientHash: string;
  to: string;
  from: string;
  subject: string;
  html: string;
  text: string;
  unless: string[];
}) => `
  tx_created AS (
    INSERT INTO transactional_messages (id, account_id, api_key_id, template_id, recipient_hash,
                                        to_address, from_address, subject, html, text)
    SELECT ${p.id}::uuid, ${p.account}::uuid, ${p.apiKey}::uuid, ${p.template}::uuid,
           ${p.recipientHash}, ${p.to}, ${p.from}, ${p.subject}, ${p.html}, ${p.text}
     WHERE ${p.unless.map((name) => `NOT EXISTS (SELECT 1 FROM ${name})`).join(' AND ') || 'true'}
    RETURNING id)`;

/**
 * The relay accepted it: sent, if the claim is still this worker's. A claim the sweep requeued
 * (lapsed) but nobody took over yet is still ours: recording it now keeps it from going twice.
 * A part of the outcome write: names `tx_sent`, the row it ended (none when the claim was no
 * longer this worker's), as a delivered send (delivered, hard_bounce, soft_bounce).
 */
export const markSentPart = (p: { account: string; id: string; epoch: string; header: string }) => `
  tx_sent AS (
    UPDATE transactional_messages
       SET status = 'sent', sent_at = now(), updated_at = now(), error = NULL,
           header_message_id = ${p.header}, lease_until = NULL, next_attempt_at = NULL
     WHERE account_id = ${p.account}::uuid AND id = ${p.id}::uuid
       AND attempts = ${p.epoch}::int AND status IN ('sending', 'queued')
    RETURNING id, true AS delivered, false AS hard_bounce, false AS soft_bounce)`;

/**
 * Back to the queue after a failure that was not the relay's answer (the database or our own
 * code), unless the recipient was erased meanwhile; only by the worker whose claim it is.
 */
export const releaseMessage = (accountId: AccountId, id: string, epoch: number, error: string) =>
  Prisma.sql`
  UPDATE transactional_messages
  SET ${requeuedUnlessErased(error)},
      lease_until = NULL, updated_at = now()
  WHERE ${heldByClaim(accountId, id, epoch)}`;

/**
 * The relay refused it for now: queued again for a try `firstSeconds` later, the wait doubling
 * with each attempt up to `maxSeconds`, the first refusal's time kept (the horizon runs from
 * it); failed instead if the recipient was erased meanwhile. Only by the claim's worker.
 * Returns how long until the next try (by the database's clock, which wrote it).
 */
export const deferMessage = (
  accountId: AccountId,
  id: string,
  epoch: number,
  error: string,
  firstSeconds: number,
  maxSeconds: number,
) => Prisma.sql`
  UPDATE transactional_messages
  SET ${requeuedUnlessErased(error)},
      deferred_since = coalesce(deferred_since, now()),
      next_attempt_at = now() + make_interval(secs => least(${maxSeconds}::float8,
        ${firstSeconds}::float8 * power(2, least(greatest(attempts - 1, 0), 30)))),
      lease_until = NULL, updated_at = now()
  WHERE ${heldByClaim(accountId, id, epoch)}
  RETURNING status::text AS status,
    extract(epoch FROM next_attempt_at - now())::float8 AS "delaySeconds"`;

/** Ends a queued or claimed message as failed. */
export const markFailed = (accountId: AccountId, id: string, error: string) => Prisma.sql`
  UPDATE transactional_messages
  SET status = 'failed', updated_at = now(), lease_until = NULL, next_attempt_at = NULL,
      error = CASE WHEN scrubbed_at IS NULL THEN ${error} ELSE ${ERASED} END
  WHERE account_id = ${accountId}::uuid AND id = ${id}::uuid
    AND status IN ('queued', 'sending')`;

/** markFailed by a worker, only while the claim (`attempts`) is still its own. */
export const markClaimFailed = (
  accountId: AccountId,
  id: string,
  epoch: number,
  error: string,
) => Prisma.sql`
  UPDATE transactional_messages
  SET status = 'failed', updated_at = now(), lease_until = NULL, next_attempt_at = NULL,
      error = CASE WHEN scrubbed_at IS NULL THEN ${error} ELSE ${ERASED} END
  WHERE account_id = ${accountId}::uuid AND id = ${id}::uuid
    AND attempts = ${epoch} AND status IN ('queued', 'sending')`;

/**
 * Across accounts (the sweep): claims whose lease ran out (their worker died or froze) go back
 * to the queue; returns them, to be enqueued at once.
 */
export const requeueLapsedClaims = (limit: number) => Prisma.sql`
  UPDATE transactional_messages m
  SET status = (CASE WHEN scrubbed_at IS NULL THEN 'queued' ELSE 'failed' END)::transactional_status,
      error = CASE WHEN scrubbed_at IS NULL THEN error ELSE ${ERASED} END,
      lease_until = NULL, updated_at = now()
  WHERE m.id IN (SELECT id FROM transactional_messages
                  WHERE status = 'sending' AND lease_until < now() LIMIT ${limit})
    AND m.status = 'sending' AND m.lease_until < now()
  RETURNING m.account_id AS "accountId", m.id, m.status::text AS status`;

/**
 * Across accounts (the sweep): queued messages that have waited long enough to have lost their
 * job, and are due (a deferred one's job waits in Redis until its next try).
 */
export const strandedMessages = (olderThanMs: number, limit: number) => Prisma.sql`
  SELECT account_id AS "accountId", id FROM transactional_messages
  WHERE status = 'queued' AND to_address IS NOT NULL
    AND updated_at < now() - make_interval(secs => ${seconds(olderThanMs)})
    AND (next_attempt_at IS NULL OR next_attempt_at <= now())
  ORDER BY updated_at LIMIT ${limit}`;

/**
 * Erasure: every personal column of the messages to this recipient goes, and a message not
 * yet sent will not be.
 */
export const scrubRecipient = (accountId: AccountId, recipientHash: string) => Prisma.sql`
  UPDATE transactional_messages
  SET to_address = NULL, subject = NULL, html = NULL, text = NULL, mime = NULL,
      scrubbed_at = now(),
      updated_at = now(),
      error = CASE WHEN status = 'queued' THEN ${ERASED} END,
      status = CASE WHEN status = 'queued' THEN 'failed' ELSE status END
  WHERE account_id = ${accountId}::uuid AND recipient_hash = ${recipientHash}`;

// --- idempotency_keys ------------------------------------------------------------------------

/**
 * Claims a key in one statement: inserts it as `processing` with `token` as the claim, or
 * takes over a record that expired or whose claim lapsed. Returns the claim now on the key.
 */
export const claimKey = (
  accountId: AccountId,
  key: string,
  fingerprint: string,
  token: string,
  leaseSeconds: number,
  retentionHours: number,
) => Prisma.sql`
  INSERT INTO idempotency_keys AS k
    (account_id, key, fingerprint, message_id, state, locked_until, expires_at)
  VALUES (${accountId}::uuid, ${key}, ${fingerprint}, ${token}::uuid, 'processing',
    now() + make_interval(secs => ${leaseSeconds}),
    now() + make_interval(hours => ${retentionHours}))
  ON CONFLICT (account_id, key) DO UPDATE
    SET fingerprint = EXCLUDED.fingerprint, message_id = EXCLUDED.message_id,
        state = 'processing', response_status = NULL, response_body = NULL,
        locked_until = EXCLUDED.locked_until, expires_at = EXCLUDED.expires_at,
        created_at = now()
    WHERE k.expires_at <= now() OR (k.state = 'processing' AND k.locked_until <= now())
  RETURNING message_id AS "messageId"`;

/** Stores the response, only while the claim is still this request's. */
export const completeKey = (
  accountId: AccountId,
  key: string,
  token: string,
  status: number,
  body: string,
) => Prisma.sql`
  UPDATE idempotency_keys
  SET state = 'completed', response_status = ${status}, response_body = ${body}::jsonb
  WHERE account_id = ${accountId}::uuid AND key = ${key}
    AND message_id = ${token}::uuid AND state = 'processing'`;

/**
 * completeKey as a part of a composed write (`key_completed`): done only when the relation
 * `after` (what the request created) holds a row.
 */
export const completeKeyPart = (p: {
  account: string;
  key: string;
  token: string;
  status: string;
  body: string;
  after: string;
}) => `
  key_completed AS (
    UPDATE idempotency_keys
       SET state = 'completed', response_status = ${p.status}::int, response_body = ${p.body}::jsonb
     WHERE account_id = ${p.account}::uuid AND key = ${p.key}
       AND message_id = ${p.token}::uuid AND state = 'processing'
       AND EXISTS (SELECT 1 FROM ${p.after})
    RETURNING key)`;

export const releaseKey = (accountId: AccountId, key: string, token: string) => Prisma.sql`
  DELETE FROM idempotency_keys
  WHERE account_id = ${accountId}::uuid AND key = ${key}
    AND message_id = ${token}::uuid AND state = 'processing'`;

/** Erasure: the keys that created messages to an erased recipient. */
export const forgetKeysOfRecipient = (accountId: AccountId, recipientHash: string) => Prisma.sql`
  DELETE FROM idempotency_keys
  WHERE account_id = ${accountId}::uuid AND message_id IN (
    SELECT id FROM transactional_messages
    WHERE account_id = ${accountId}::uuid AND recipient_hash = ${recipientHash})`;

/** Across accounts (the sweep): up to `limit` expired records. */
export const pruneExpiredKeys = (limit: number) => Prisma.sql`
  DELETE FROM idempotency_keys WHERE ctid = ANY (ARRAY(
    SELECT ctid FROM idempotency_keys WHERE expires_at <= now() LIMIT ${limit}))`;

// --- reads for reports about sent messages (bounces, complaints) ----------------------------

/** A message Herald sent (or tried to), not scrubbed. */
export const sentMessage = (messageId: string) => Prisma.sql`
  SELECT account_id::text, to_address
    FROM transactional_messages
   WHERE id = ${messageId}::uuid AND to_address IS NOT NULL
     AND status IN ('sending', 'sent', 'failed')`;

/**
 * The latest message since `days` ago to a recipient, given per account by its erasure hash
 * (the address column is not indexed, and is scrubbed on erasure).
 */
export const latestSentTo = (accountIds: string[], recipientHashes: string[], days: number) =>
  Prisma.sql`
  SELECT m.id::text, m.sent_at
    FROM transactional_messages m
    JOIN unnest(${accountIds}::uuid[], ${recipientHashes}::text[]) AS a(account_id, hash)
      ON m.account_id = a.account_id AND m.recipient_hash = a.hash
   WHERE m.sent_at > now() - make_interval(days => ${days})
   ORDER BY m.sent_at DESC
   LIMIT 1`;
