// Every statement over webhook_endpoints, webhook_event_batches and webhook_deliveries that is
// not Prisma's model API. pg text with $n parameters: they run on whichever transaction the
// caller has (runSql), or on PgPool (the dispatcher's claims and results).

/** The enabled endpoints of an account and the events each wants. $1 account. */
export const ENABLED_ENDPOINTS = `
  SELECT id::text, events FROM webhook_endpoints WHERE account_id = $1 AND enabled`;

/** A batch of events, not yet attempted. $1 id, $2 account, $3 events (JSON), $4 delivery ids. */
export const INSERT_BATCH = `
  INSERT INTO webhook_event_batches (id, account_id, events, pending_ids)
  VALUES ($1, $2, $3, $4::uuid[])`;

/**
 * INSERT_BATCH as a WITH item in front of another statement, its parameters from $first on
 * (PostgreSQL runs a data-modifying WITH item whether or not the statement reads it).
 */
export function insertBatchAlongside(first: number): string {
  const [id, account, events, ids] = [0, 1, 2, 3].map((i) => `$${first + i}`);
  return `webhook_batch AS (
    INSERT INTO webhook_event_batches (id, account_id, events, pending_ids)
    VALUES (${id}::uuid, ${account}::uuid, ${events}, ${ids}::uuid[]))`;
}

/**
 * Claims up to $1 batches nobody holds (or whose holder's lease ran out: it died), oldest
 * first, for $2 ms. SKIP LOCKED: dispatchers never share one, and never wait on an erasure.
 */
export const CLAIM_BATCHES = `
  UPDATE webhook_event_batches b
     SET claimed_until = now() + make_interval(secs => $2::int / 1000.0)
    FROM (SELECT id FROM webhook_event_batches
           WHERE claimed_until IS NULL OR claimed_until < now()
           ORDER BY id
           LIMIT $1
             FOR UPDATE SKIP LOCKED) picked
   WHERE b.id = picked.id
  RETURNING b.id::text, b.account_id::text, b.events, b.pending_ids::text[] AS pending_ids,
            b.created_at`;

/** The batches a dispatcher still works through: their lease again. $1 ids, $2 lease ms. */
export const RENEW_BATCHES = `
  UPDATE webhook_event_batches
     SET claimed_until = now() + make_interval(secs => $2::int / 1000.0)
   WHERE id = ANY($1::uuid[])`;

/** A dispatcher that stops hands its batches back at once. $1 ids. */
export const RELEASE_BATCHES = `
  UPDATE webhook_event_batches SET claimed_until = NULL WHERE id = ANY($1::uuid[])`;

/** Endpoints a batch names, as they are now. $1 ids. */
export const ENDPOINTS_BY_ID = `
  SELECT id::text, url, secret_sealed, enabled FROM webhook_endpoints WHERE id = ANY($1::uuid[])`;

/**
 * Before first attempts' results are written: the batches' delivery ids still to write, the
 * rows locked in id order (an erasure takes them in the same order). $1 batch ids.
 */
export const LOCK_BATCHES = `
  SELECT id::text, pending_ids::text[] AS pending_ids FROM webhook_event_batches
   WHERE id = ANY($1::uuid[])
   ORDER BY id
     FOR UPDATE`;

/**
 * Delivery rows with their first attempt's result (or none yet, when the endpoint is disabled:
 * it waits, due). $1 account ids, then parallel arrays: $2 ids, $3 endpoints, $4 event ids,
 * $5 types, $6 payloads, $7 subscribers, $8 recipient hashes, $9 statuses, $10 attempts,
 * $11 next attempts, $12 response statuses, $13 latencies, $14 errors, $15 created at. Not for
 * an endpoint deleted meanwhile (deleting one deletes its deliveries).
 */
export const INSERT_ATTEMPTED = `
  INSERT INTO webhook_deliveries
         (id, account_id, endpoint_id, event_id, type, payload, subscriber_id, recipient_hash,
          status, attempts, next_attempt_at, response_status, latency_ms, last_error, created_at)
  SELECT d.id, d.account_id, d.endpoint_id, d.event_id, d.type, d.payload, d.subscriber_id,
         d.recipient_hash, d.status::webhook_delivery_status, d.attempts, d.next_at, d.code,
         d.latency, d.error, d.created_at
    FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::text[],
                $7::uuid[], $8::text[], $9::text[], $10::int[], $11::timestamptz[], $12::int[],
                $13::int[], $14::text[], $15::timestamptz[])
           AS d(account_id, id, endpoint_id, event_id, type, payload, subscriber_id,
                recipient_hash, status, attempts, next_at, code, latency, error, created_at)
   WHERE EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = d.endpoint_id)
  ON CONFLICT (id) DO NOTHING`;

/** Delivery ids written (or dropped): no longer pending in their batch. $1 batch, $2 ids. */
export const SHRINK_BATCH = `
  UPDATE webhook_event_batches
     SET pending_ids = ARRAY(SELECT p FROM unnest(pending_ids) AS p WHERE p <> ALL($2::uuid[]))
   WHERE id = $1`;

/** Batches with nothing left to write. $1 ids. */
export const DELETE_DONE_BATCHES = `
  DELETE FROM webhook_event_batches WHERE id = ANY($1::uuid[]) AND cardinality(pending_ids) = 0`;

/**
 * Erasure: an account's batches that may hold events about the person (their subscriber id or
 * address hash appears in the JSON), locked in id order. $1 account, $2 subscriber (or null),
 * $3 recipient hash.
 */
export const BATCHES_MENTIONING = `
  SELECT id::text, events, pending_ids::text[] AS pending_ids, created_at
    FROM webhook_event_batches
   WHERE account_id = $1
     AND (($2::text IS NOT NULL AND strpos(events, $2::text) > 0) OR strpos(events, $3) > 0)
   ORDER BY id
     FOR UPDATE`;

/** Erasure: a batch without the person's events. $1 id, $2 events (JSON), $3 delivery ids. */
export const REWRITE_BATCH = `
  UPDATE webhook_event_batches SET events = $2, pending_ids = $3::uuid[] WHERE id = $1`;

/**
 * Erasure: the log of the person's events that were never attempted, without their payload.
 * $1 account, parallel arrays: $2 ids, $3 endpoints, $4 event ids, $5 types, $6 created at.
 */
export const INSERT_WITHHELD = `
  INSERT INTO webhook_deliveries
         (id, account_id, endpoint_id, event_id, type, payload, status, attempts, next_attempt_at,
          last_error, created_at)
  SELECT d.id, $1, d.endpoint_id, d.event_id, d.type, NULL, 'failed', 0, NULL,
         'not delivered: the person was erased', d.created_at
    FROM unnest($2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::timestamptz[])
           AS d(id, endpoint_id, event_id, type, created_at)
   WHERE EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = d.endpoint_id)
  ON CONFLICT (id) DO NOTHING`;

/**
 * Claims up to $1 due deliveries of enabled endpoints, across accounts (the dispatcher serves
 * every account): the lease moves next_attempt_at $2 ms ahead, so a dispatcher that dies
 * mid-attempt leaves them due again afterwards. SKIP LOCKED: dispatchers never share a row.
 */
export const CLAIM_DUE = `
  UPDATE webhook_deliveries d
     SET next_attempt_at = now() + make_interval(secs => $2::int / 1000.0), attempts = d.attempts + 1
    FROM (SELECT w.id FROM webhook_deliveries w
           WHERE w.status = 'pending' AND w.next_attempt_at <= now()
             AND EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = w.endpoint_id AND e.enabled)
           ORDER BY w.next_attempt_at
           LIMIT $1
             FOR UPDATE OF w SKIP LOCKED) picked, webhook_endpoints e
   WHERE d.id = picked.id AND e.id = d.endpoint_id
  RETURNING d.id::text, d.account_id::text, d.endpoint_id::text, d.event_id::text, d.payload,
            d.attempts, e.url, e.secret_sealed`;

/**
 * Results of attempts in bulk. $1 ids, $2 succeeded, $3 response statuses, $4 latencies,
 * $5 errors, $6 next attempt (null: no more: failed, unless it succeeded).
 */
export const WRITE_RESULTS = `
  UPDATE webhook_deliveries d
     SET status = (CASE WHEN r.ok THEN 'succeeded' WHEN r.next_at IS NULL THEN 'failed'
                        ELSE 'pending' END)::webhook_delivery_status,
         next_attempt_at = CASE WHEN r.ok THEN NULL ELSE r.next_at END,
         response_status = r.code, latency_ms = r.latency, last_error = r.error
    FROM unnest($1::uuid[], $2::bool[], $3::int[], $4::int[], $5::text[], $6::timestamptz[])
           AS r(id, ok, code, latency, error, next_at)
   WHERE d.id = r.id AND d.status = 'pending'`;

/** Endpoints that answered a 2xx: their run of failures is over. $1 endpoint ids. */
export const ENDPOINTS_SUCCEEDED = `
  UPDATE webhook_endpoints SET failing_since = NULL
   WHERE id = ANY($1::uuid[]) AND failing_since IS NOT NULL`;

/**
 * Endpoints whose attempts failed: the run of failures starts now if it had not, and an endpoint
 * failing for longer than $2 days is disabled with the reason. Returns those disabled now.
 * $1 endpoint ids, $2 days, $3 last errors (parallel to $1).
 */
export const ENDPOINTS_FAILED = `
  UPDATE webhook_endpoints e
     SET failing_since = coalesce(e.failing_since, now()),
         enabled = CASE WHEN e.failing_since < now() - make_interval(days => $2) THEN false
                        ELSE e.enabled END,
         disabled_reason = CASE
           WHEN e.failing_since < now() - make_interval(days => $2)
           THEN 'Every delivery failed since ' || to_char(e.failing_since AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') ||
                ' UTC (more than ' || $2 || ' days); the last: ' || f.error
           ELSE e.disabled_reason END
    FROM unnest($1::uuid[], $3::text[]) AS f(id, error)
   WHERE e.id = f.id AND e.enabled
  RETURNING e.id::text, e.enabled`;

/** Erasure: the person's deliveries lose their payload; those still pending will not be made. */
export const SCRUB_DELIVERIES = `
  UPDATE webhook_deliveries
     SET payload = NULL,
         status = CASE WHEN status = 'pending' THEN 'failed'::webhook_delivery_status ELSE status END,
         next_attempt_at = NULL,
         last_error = CASE WHEN status = 'pending' THEN 'not delivered: the person was erased'
                           ELSE last_error END
   WHERE account_id = $1
     AND (subscriber_id = $2::uuid OR recipient_hash = $3)
     AND payload IS NOT NULL`;

/** A manual retry: due at once, however it ended. $1 account, $2 endpoint, $3 delivery. */
export const RETRY_NOW = `
  UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now()
   WHERE account_id = $1 AND endpoint_id = $2::uuid AND id = $3::uuid AND payload IS NOT NULL
  RETURNING id::text`;

/** Finished deliveries older than $1 days, at most $2 per call, across accounts. */
export const PRUNE_FINISHED = `
  DELETE FROM webhook_deliveries WHERE id IN (
    SELECT id FROM webhook_deliveries
     WHERE status <> 'pending' AND created_at < now() - make_interval(days => $1)
     LIMIT $2)`;
