// The baseline of `npm run bench:api-list`: GET /v1/subscribers on bare Fastify + pg, doing
// the same work per request as Herald and nothing more. It shares one piece of code with src/:
// the API-key cache (ApiKeyCache), kept honest the way Herald keeps it (a LISTEN connection
// on the api_keys trigger's channel; the cache is on only while it listens), because Herald
// serves a known key from that cache and a baseline reading PostgreSQL on every request would
// measure a round trip Herald does not make. Everything else is its own, so it measures the
// cost of the work itself, not of Herald's layers; run.ts checks that both servers answer
// byte-for-byte the same JSON before it measures anything.
//
// Per request, like Herald: parse the bearer, check the live-key format, HMAC-SHA256 the key
// (KeyedHasher, purpose "api-key"), take it from the cache or else look it up by hash (one
// read shared by requests that miss together, as ApiKeysService does) and cache it, refuse
// non-active keys, touch last_used_at at most once a minute, check the subscribers:read
// scope, parse limit and cursor (signed per account and list), run the keyset query for
// limit + 1 rows, present rows as the API's subscribers and sign next_cursor.
//
// Env: DATABASE_URL, HERALD_SECRET, PORT. Listens on 127.0.0.1 only.

import Fastify, { FastifyReply } from 'fastify';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Client, Pool } from 'pg';
import { ApiKeyCache } from '../../src/auth/api-key-cache';
import { KEY_CHANGES_CHANNEL } from '../../src/auth/api-keys.sql';
import type { StoredKey } from '../../src/auth/api-keys.repository';
import { KEY_TOUCH_INTERVAL_MS } from '../../src/auth/auth.settings';

const secret = process.env.HERALD_SECRET ?? '';
const port = Number(process.env.PORT ?? '0');
// Herald's PrismaPg adapter uses a pool of 10; the same here so neither has more connections.
const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });

const LIVE_KEY = /^sk_live_[A-Za-z0-9_-]{43}$/;
const BEARER = /^Bearer +(\S+) *$/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const hmac = (purpose: string, value: string) =>
  createHmac('sha256', secret).update(purpose).update('\0').update(value).digest('base64url');

const cache = new ApiKeyCache();
/** Reads of a key under way, shared by the requests that miss the cache meanwhile. */
const lookups = new Map<string, { generation: number; key: Promise<StoredKey | undefined> }>();

/** Keeps the cache on while changes to api_keys are heard (see ApiKeyChangeListener). */
async function listenForKeyChanges(): Promise<void> {
  const client = new Client({ connectionString: process.env.DATABASE_URL });
  client.on('notification', (message) => {
    if (message.channel === KEY_CHANGES_CHANNEL && message.payload) cache.forget(message.payload);
  });
  // Nothing would tell us about a revocation any more: read every key from the table.
  client.on('error', () => cache.disable());
  client.on('end', () => cache.disable());
  await client.connect();
  await client.query(`LISTEN ${KEY_CHANGES_CHANNEL}`);
  cache.enable();
}

function lookUp(secretHash: string, now: Date): Promise<StoredKey | undefined> {
  const generation = cache.generation();
  const pending = lookups.get(secretHash);
  if (pending?.generation === generation) return pending.key;
  const key = pool
    .query<StoredKey>(
      `SELECT id, account_id AS "accountId", scopes, status, last_used_at AS "lastUsedAt"
         FROM api_keys WHERE secret_hash = $1`,
      [secretHash],
    )
    .then(({ rows: [row] }) => {
      if (row?.status !== 'active') return undefined;
      cache.remember(secretHash, row, generation, now.getTime());
      return row;
    })
    .finally(() => {
      if (lookups.get(secretHash)?.key === key) lookups.delete(secretHash);
    });
  lookups.set(secretHash, { generation, key });
  return key;
}

type Row = Record<string, unknown> & { id: string; created_at: Date; updated_at: Date };

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function authenticate(header: string | undefined): Promise<StoredKey> {
  const token = header ? BEARER.exec(header)?.[1] : undefined;
  if (!token || !LIVE_KEY.test(token)) throw unauthorized();
  const secretHash = hmac('api-key', token);
  const now = new Date();
  const key = cache.get(secretHash, now.getTime()) ?? (await lookUp(secretHash, now));
  if (!key) throw unauthorized();
  // The cached object is shared: its lastUsedAt moves before the write, so one request writes.
  if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() >= KEY_TOUCH_INTERVAL_MS) {
    key.lastUsedAt = now;
    await pool.query('UPDATE api_keys SET last_used_at = $1 WHERE account_id = $2 AND id = $3', [
      now,
      key.accountId,
      key.id,
    ]);
  }
  if (!key.scopes.includes('subscribers:read')) {
    throw new HttpError(403, 'insufficient_scope', 'This key lacks the subscribers:read scope.');
  }
  return key;
}

const unauthorized = () =>
  new HttpError(
    401,
    'invalid_credential',
    'The API key is missing, invalid, revoked or suspended.',
  );
const badRequest = (message: string) => new HttpError(400, 'invalid_request', message);

function parseLimit(raw: unknown): number {
  if (raw === undefined) return 25;
  const value = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
  if (!Number.isFinite(value)) throw badRequest('limit must be a number.');
  return Math.min(100, Math.max(1, Math.trunc(value)));
}

/** Cursor = base64url(last id) + "." + HMAC under purpose "cursor:<list>:<account>". */
function decodeCursor(accountId: string, raw: unknown): string | undefined {
  if (raw === undefined) return undefined;
  const invalid = badRequest('The cursor is invalid or was issued for another list.');
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 512) throw invalid;
  const [payload, signature, ...rest] = raw.split('.');
  if (rest.length || payload === undefined || signature === undefined) throw invalid;
  const actual = Buffer.from(hmac(`cursor:subscribers:${accountId}`, payload));
  const wanted = Buffer.from(signature);
  if (actual.length !== wanted.length || !timingSafeEqual(actual, wanted)) throw invalid;
  const lastId = Buffer.from(payload, 'base64url').toString('utf8');
  if (!UUID.test(lastId)) throw invalid;
  return lastId;
}

const encodeCursor = (accountId: string, lastId: string) => {
  const payload = Buffer.from(lastId, 'utf8').toString('base64url');
  return `${payload}.${hmac(`cursor:subscribers:${accountId}`, payload)}`;
};

const iso = (value: unknown) => (value instanceof Date ? value.toISOString() : null);

/** Same fields, order and types as Herald's presentSubscriber (int8 arrives as a string). */
function present(row: Row) {
  return {
    id: row.id,
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    phone: row.phone,
    address1: row.address1,
    address2: row.address2,
    city: row.city,
    state: row.state,
    zip: row.zip,
    country_code: row.country_code,
    birthdate: iso(row.birthdate),
    gender: row.gender,
    income_level: row.income_level,
    membership_status: row.membership_status,
    status: row.status,
    timezone: row.timezone,
    interests: row.interests,
    tags: row.tags,
    custom_fields: row.custom_fields,
    social_media: row.social_media,
    statistics: {
      sent: row.stat_sent,
      delivered: row.stat_delivered,
      opens: row.stat_opens,
      clicks: row.stat_clicks,
      hard_bounces: row.stat_hard_bounces,
      soft_bounces: row.stat_soft_bounces,
      revenue_cents: Number(row.stat_revenue_cents),
      last_sent_at: iso(row.last_sent_at),
      last_open_at: iso(row.last_open_at),
      last_click_at: iso(row.last_click_at),
    },
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

const app = Fastify({ logger: false });

app.get('/health', (_request, reply) => reply.send({ status: 'ok' }));

app.get<{ Querystring: { limit?: string; cursor?: string } }>(
  '/v1/subscribers',
  async (request, reply) => {
    try {
      const key = await authenticate(request.headers.authorization);
      const accountId = key.accountId;
      const limit = parseLimit(request.query.limit);
      const afterId = decodeCursor(accountId, request.query.cursor);
      // Ask for one row more than the limit to learn whether another page exists.
      const { rows } = afterId
        ? await pool.query<Row>(
            'SELECT * FROM subscribers WHERE account_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3',
            [accountId, afterId, limit + 1],
          )
        : await pool.query<Row>(
            'SELECT * FROM subscribers WHERE account_id = $1 ORDER BY id DESC LIMIT $2',
            [accountId, limit + 1],
          );
      const pageRows = rows.slice(0, limit);
      const last = pageRows.at(-1);
      return {
        data: pageRows.map(present),
        next_cursor: rows.length > limit && last ? encodeCursor(accountId, last.id) : null,
      };
    } catch (error) {
      return sendError(reply, error);
    }
  },
);

function sendError(reply: FastifyReply, error: unknown) {
  const known = error instanceof HttpError;
  if (!known) console.error(error);
  const status = known ? error.status : 500;
  const code = known ? error.code : 'internal_error';
  const message = known ? error.message : 'Something went wrong on our side.';
  return reply.status(status).send({ error: { code, message, details: [] } });
}

// run.ts talks to us over IPC: leave when it goes away, so a killed run leaves no server behind.
process.on('disconnect', () => process.exit(0));
// Exiting (rather than dying of the signal) writes the profile when run with --cpu-prof.
process.on('SIGTERM', () => process.exit(0));

listenForKeyChanges()
  .then(() => app.listen({ host: '127.0.0.1', port }))
  .catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
