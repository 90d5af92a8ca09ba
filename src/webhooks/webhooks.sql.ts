// Every statement over webhook_endpoints and webhook_deliveries that is not Prisma's model API.
// pg text with $n parameters: they run on whichever transaction the caller has (runSql), or on
// PgPool (the dispatcher's claims and results).

/** The enabled endpoints of an account and the events each wants. $1 account. */
export const ENABLED_ENDPOINTS = `
  SELECT id::text, events FROM webhook_endpoints WHERE account_id = $1 AND enabled`;

/**
 * One event × endpoint per row, due at once. $1 account, then parallel arrays: $2 ids,
 * $3 endpoints, $4 event ids, $5 types, $6 payloads, $7 subscribers, $8 recipient hashes.
 */
export const INSERT_DELIVERIES = `
  INSERT INTO webhook_deliveries
         (id, account_id, endpoint_id, event_id, type, payload, subscriber_id, recipient_hash,
          next_attempt_at)
  SELECT d.id, $1, d.endpoint_id, d.event_id, d.type, d.payload, d.subscriber_id, d.recipient_hash,
         now()
    FROM unnest($2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::text[], $7::uuid[], $8::text[])
           AS d(id, endpoint_id, event_id, type, payload, subscriber_id, recipient_hash)`;

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
