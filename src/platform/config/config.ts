import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { dirname, resolve } from 'node:path';
import { PG_POOL_SIZE } from '../settings';
import { parseMailbox } from '../validation/mailbox';
import { ConfigError } from './config-error';
import { EmbeddedDatabaseConfig, embeddedDatabaseOf } from './embedded-database-config';
import { DeliverabilityConfig, parseDeliverability } from './deliverability-config';
import { parseRedis, RedisTarget } from './redis-config';
import { parseSubmission, SubmissionConfig } from './submission-config';
import { parseTrustProxy, TrustProxy } from './trust-proxy';
import { parseWorkerRoles, WorkerRole } from './worker-roles';

/** Herald's configuration, parsed and validated once at start-up (see README for each variable). */
export interface HeraldConfig {
  databaseUrl: string;
  /** The PostgreSQL connection settings that depend on what DATABASE_URL points at. */
  database: DatabaseConfig;
  /**
   * DB_STATEMENT_TIMEOUT_MS (default 10 s): PostgreSQL cancels any statement of Herald's that
   * runs longer, so a statement gone wrong cannot hold a connection (and the CPU) for minutes;
   * its request answers with an error and its job is tried again.
   */
  statementTimeoutMs: number;
  /**
   * Set when DATABASE_URL is not: the PostgreSQL that Herald runs itself under ./var/postgres
   * (src/platform/database/embedded), which DATABASE_URL then points at.
   */
  embeddedDatabase: EmbeddedDatabaseConfig | undefined;
  /** REDIS_URL as given, for child processes and tools. */
  redisUrl: string | undefined;
  /**
   * Where Redis is: one server, a Sentinel group or a Cluster (redis-config.ts); unset (neither
   * REDIS_URL nor REDIS_CLUSTER_NODES): queues, rate limits and locks live in PostgreSQL
   * (src/platform/store).
   */
  redis: RedisTarget | undefined;
  port: number;
  smtpUrl: string | undefined;
  outboxDir: string;
  publicUrl: string;
  queuePrefix: string;
  secret: string;
  logLevel: LogLevel;
  rateLimits: RateLimitConfig;
  /** DKIM signing of every outgoing message, when a key is configured. */
  dkim: DkimConfig | undefined;
  /** Inbound mail and provider webhooks (deliverability-config.ts). */
  deliverability: DeliverabilityConfig;
  /**
   * MESSAGE_RETENTION_DAYS: how long the message log keeps a message after its creation.
   * Fractions are allowed (a test keeps messages for seconds).
   */
  messageRetentionDays: number;
  /** SMTP submission for applications (submission-config.ts); undefined when off. */
  submission: SubmissionConfig | undefined;
  /** DNS_SERVERS: the resolvers sender-domain checks ask (`ip` or `ip:port`); unset: the system's. */
  dnsServers: string[] | undefined;
  /**
   * ALLOW_UNVERIFIED_FROM=1 lets mail leave with a From on a domain the account has not
   * verified. For development only: without it an account could send as anyone.
   */
  allowUnverifiedFrom: boolean;
  /**
   * WEBHOOK_ALLOW_PRIVATE=1 lets webhook endpoints resolve to private, loopback and link-local
   * addresses (for tests and endpoints on the operator's own network). Off: such URLs are
   * refused when saved and again when each delivery connects.
   */
  webhookAllowPrivate: boolean;
  /**
   * BOUNCE_DOMAIN (default: the PUBLIC_URL host): where bounces come back to. Sender domains
   * point their return-path MX at it and include its SPF record.
   */
  bounceDomain: string;
  /**
   * SIGNUP: who may create an account from the dashboard. `first` (default): only the first
   * person on an empty installation, who becomes its operator; `open`: anyone; `closed`: no one
   * (accounts come from the operator CLI).
   */
  signup: SignupMode;
  /**
   * MAIL_FROM (default `Herald <no-reply@PUBLIC_URL host>`): the From of Herald's own mail to
   * dashboard people (password reset links, invitations), as opposed to accounts' mail.
   */
  mailFrom: string;
  /**
   * SEND_RATE_PER_MINUTE (unset: no limit): campaign messages per minute for each account,
   * shared by all its campaigns and all worker processes, as a steady pace.
   */
  sendRatePerMinute: number | undefined;
  /** How temporary SMTP refusals are retried (SMTP_RETRY_*): see SmtpRetryPolicy. */
  smtpRetry: SmtpRetryPolicy;
  /** TRUST_PROXY: whose X-Forwarded-For names the client address (trust-proxy.ts). */
  trustProxy: TrustProxy;
  /**
   * WORKER_NICE (0 to 19; unset: 0 for `start:worker`, ALL_IN_ONE_WORKER_NICE for the worker
   * child of `npm start`): how far a worker process lowers its CPU priority (Unix nice).
   */
  workerNice: number | undefined;
  /** WORKER_ROLES: the kinds of work this process's workers take (worker-roles.ts). */
  workerRoles: WorkerRole[];
  /** How a signalled process closes (src/platform/lifecycle.ts). */
  shutdown: ShutdownConfig;
  /** GET /metrics and the workers' metrics port. */
  metrics: MetricsConfig;
}

/** What PostgreSQL looks like from here: straight, or behind a pooler. */
export interface DatabaseConfig {
  /**
   * DATABASE_DIRECT_URL (default DATABASE_URL): a connection straight to PostgreSQL, for what
   * needs a session of its own: migrations and their session lock, and LISTEN.
   */
  directUrl: string;
  /**
   * DATABASE_POOLER: `none` (default: DATABASE_URL is PostgreSQL itself) or `pgbouncer`
   * (DATABASE_URL is a PgBouncer in transaction mode, which hands each transaction whatever
   * server connection is free: no startup parameters, no session state on the pool).
   */
  pooler: DatabasePooler;
  /**
   * DB_NAMED_STATEMENTS (default 1 without a pooler, 0 with PgBouncer): whether hot statements
   * are prepared by name once per connection. PgBouncer before 1.21 (and any without
   * max_prepared_statements) cannot follow a named statement from one server connection to
   * another, so it is off there; set it to 1 behind PgBouncer 1.21+ with max_prepared_statements.
   */
  namedStatements: boolean;
  /** DB_POOL_SIZE (default 10): connections in each process's pool. */
  poolSize: number;
}

export const DATABASE_POOLERS = ['none', 'pgbouncer'] as const;
export type DatabasePooler = (typeof DATABASE_POOLERS)[number];

export interface ShutdownConfig {
  /**
   * SHUTDOWN_GRACE_SECONDS (default 30): from SIGTERM to the process's exit at the latest. Jobs
   * still running then are abandoned: their locks lapse and another worker takes them (the
   * ledger keeps a message from going twice).
   */
  graceSeconds: number;
  /**
   * SHUTDOWN_DRAIN_SECONDS (default 0): how long an API process keeps serving after SIGTERM
   * with GET /health/ready answering 503, so a load balancer stops sending before the listener
   * closes. Counted inside the grace.
   */
  drainSeconds: number;
}

export interface MetricsConfig {
  /** METRICS_TOKEN (unset: open): the bearer token GET /metrics requires. */
  token: string | undefined;
  /**
   * METRICS_PORT (unset: none): a worker process (`start:worker`, `start:smtp`) serves GET /metrics and its
   * probes, /health/live and /health/ready, on this port; the API serves them on PORT.
   */
  workerPort: number | undefined;
}

/**
 * A message the relay refuses for now (4xx, connection trouble) is tried again after
 * SMTP_RETRY_FIRST_SECONDS (default 60), the wait doubling up to SMTP_RETRY_MAX_SECONDS
 * (default 3600), like a real MTA's queue; a recipient still refused SMTP_RETRY_HORIZON_SECONDS
 * (default 86400, a day) after the first refusal has failed.
 */
export interface SmtpRetryPolicy {
  firstSeconds: number;
  maxSeconds: number;
  horizonSeconds: number;
}

export const SIGNUP_MODES = ['first', 'open', 'closed'] as const;
export type SignupMode = (typeof SIGNUP_MODES)[number];

export interface DkimConfig {
  /** DKIM_DOMAIN: the d= domain, normally the From domain. */
  domain: string;
  /** DKIM_SELECTOR (default `herald`): the s= selector of the DNS record. */
  selector: string;
  /** The PEM private key: DKIM_PRIVATE_KEY, or read from the file DKIM_PRIVATE_KEY_FILE. */
  privateKey: string;
}

/**
 * Per-API-key request limits, shared by every API process through Redis. Each class allows
 * `limit` requests per window; on top of that a key may draw on a burst reserve of
 * `limit * burstFactor` requests, refilled every `burstWindowSeconds`. Accounts may override
 * the limits (accounts.rate_limit, accounts.send_rate_limit).
 */
export interface RateLimitConfig {
  /** Every /v1 route but the sends: RATE_LIMIT. */
  general: number;
  /** POST /v1/transactional/send and POST /v1/campaigns/{id}/send: RATE_LIMIT_SEND. */
  send: number;
  /**
   * Per client address, for requests nobody is signed in for (dashboard sign-in/sign-up,
   * public pages): RATE_LIMIT_ANONYMOUS.
   */
  anonymous: number;
  /**
   * Per client address, for the routes mail infrastructure calls on behalf of many people
   * (tracking links, the one-click unsubscribe, provider webhooks): RATE_LIMIT_MAIL_AGENTS.
   */
  mailAgents: number;
  windowSeconds: number;
  burstFactor: number;
  burstWindowSeconds: number;
}

/** pino's levels: LOG_LEVEL takes one of these (in any case). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env): HeraldConfig {
  const port = parsePort(env.PORT ?? '3000');
  const embeddedDatabase = env.DATABASE_URL ? undefined : embeddedDatabaseOf(env);
  const databaseUrl = parseUrl('DATABASE_URL', env.DATABASE_URL ?? embeddedDatabase!.url, [
    'postgres:',
    'postgresql:',
  ]);
  const redis = parseRedis(env);
  const redisUrl = env.REDIS_URL?.trim() || undefined;
  const smtpUrl = env.SMTP_URL
    ? parseUrl('SMTP_URL', env.SMTP_URL, ['smtp:', 'smtps:'])
    : undefined;
  const publicUrl = parseUrl('PUBLIC_URL', env.PUBLIC_URL ?? `http://localhost:${port}`, [
    'http:',
    'https:',
  ]).replace(/\/+$/, '');
  const queuePrefix = env.QUEUE_PREFIX ?? 'herald';
  if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(queuePrefix)) {
    throw new ConfigError('QUEUE_PREFIX', 'must be 1-64 characters of letters, digits, _ . : -');
  }
  return {
    databaseUrl,
    embeddedDatabase,
    database: parseDatabase(env, databaseUrl),
    statementTimeoutMs: parseInteger(env, 'DB_STATEMENT_TIMEOUT_MS', 10_000, 100, 3_600_000),
    redisUrl,
    redis,
    port,
    smtpUrl,
    outboxDir: resolve(env.OUTBOX_DIR ?? 'var/outbox'),
    publicUrl,
    queuePrefix,
    secret: parseSecret(env.HERALD_SECRET),
    logLevel: parseLogLevel(env.LOG_LEVEL),
    signup: parseSignup(env.SIGNUP),
    rateLimits: parseRateLimits(env),
    dkim: parseDkim(env),
    deliverability: parseDeliverability(env),
    submission: parseSubmission(env),
    messageRetentionDays: parseRetentionDays(env.MESSAGE_RETENTION_DAYS),
    dnsServers: parseDnsServers(env.DNS_SERVERS),
    allowUnverifiedFrom: parseFlag(env, 'ALLOW_UNVERIFIED_FROM'),
    webhookAllowPrivate: parseFlag(env, 'WEBHOOK_ALLOW_PRIVATE'),
    bounceDomain: parseBounceDomain(env.BOUNCE_DOMAIN, publicUrl),
    mailFrom: parseMailFrom(env.MAIL_FROM, publicUrl),
    sendRatePerMinute: parseOptionalInteger(env, 'SEND_RATE_PER_MINUTE', 1, 1_000_000),
    smtpRetry: parseSmtpRetry(env),
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    workerNice: parseOptionalInteger(env, 'WORKER_NICE', 0, 19),
    workerRoles: parseWorkerRoles(env.WORKER_ROLES),
    shutdown: parseShutdown(env),
    metrics: parseMetrics(env),
  };
}

function parseDatabase(env: Env, databaseUrl: string): DatabaseConfig {
  const directUrl = env.DATABASE_DIRECT_URL?.trim()
    ? parseUrl('DATABASE_DIRECT_URL', env.DATABASE_DIRECT_URL.trim(), ['postgres:', 'postgresql:'])
    : databaseUrl;
  const raw = env.DATABASE_POOLER?.trim().toLowerCase() || 'none';
  if (!(DATABASE_POOLERS as readonly string[]).includes(raw)) {
    throw new ConfigError(
      'DATABASE_POOLER',
      `must be one of ${DATABASE_POOLERS.join(', ')}, got "${env.DATABASE_POOLER}"`,
    );
  }
  const pooler = raw as DatabasePooler;
  const named = env.DB_NAMED_STATEMENTS?.trim() ? parseFlag(env, 'DB_NAMED_STATEMENTS') : undefined;
  return {
    directUrl,
    pooler,
    namedStatements: named ?? pooler === 'none',
    poolSize: parseInteger(env, 'DB_POOL_SIZE', PG_POOL_SIZE, 1, 1000),
  };
}

function parseShutdown(env: Env): ShutdownConfig {
  const graceSeconds = parseInteger(env, 'SHUTDOWN_GRACE_SECONDS', 30, 1, 3600);
  const drainSeconds = parseInteger(env, 'SHUTDOWN_DRAIN_SECONDS', 0, 0, 3600);
  if (drainSeconds >= graceSeconds) {
    throw new ConfigError('SHUTDOWN_DRAIN_SECONDS', 'must be less than SHUTDOWN_GRACE_SECONDS');
  }
  return { graceSeconds, drainSeconds };
}

function parseMetrics(env: Env): MetricsConfig {
  const token =
    env.METRICS_TOKEN === undefined || env.METRICS_TOKEN === '' ? undefined : env.METRICS_TOKEN;
  if (token !== undefined && (token.length < 16 || /\s/.test(token))) {
    throw new ConfigError('METRICS_TOKEN', 'must be at least 16 characters without spaces');
  }
  const workerPort = env.METRICS_PORT?.trim()
    ? parseInteger(env, 'METRICS_PORT', 0, 1, 65535)
    : undefined;
  return { token, workerPort };
}

function parseSmtpRetry(env: Env): SmtpRetryPolicy {
  const week = 7 * 86_400;
  const firstSeconds = parseInteger(env, 'SMTP_RETRY_FIRST_SECONDS', 60, 1, week);
  const maxSeconds = parseInteger(env, 'SMTP_RETRY_MAX_SECONDS', 3600, 1, week);
  const horizonSeconds = parseInteger(env, 'SMTP_RETRY_HORIZON_SECONDS', 86_400, 1, 30 * 86_400);
  if (maxSeconds < firstSeconds) {
    throw new ConfigError(
      'SMTP_RETRY_MAX_SECONDS',
      'must not be less than SMTP_RETRY_FIRST_SECONDS',
    );
  }
  return { firstSeconds, maxSeconds, horizonSeconds };
}

function parseMailFrom(raw: string | undefined, publicUrl: string): string {
  // The default may name a host such as localhost, which has no dot: fine for a first try,
  // and a relay that cares will say so. A value the operator sets must be a real mailbox.
  if (raw === undefined || raw.trim() === '') {
    return `Herald <no-reply@${new URL(publicUrl).hostname}>`;
  }
  if (!parseMailbox(raw)) {
    throw new ConfigError(
      'MAIL_FROM',
      `must be an address or "Name <address>", got "${raw.slice(0, 100)}"`,
    );
  }
  return raw.trim();
}

/**
 * `host[:port]` entries, comma-separated, as node:dns takes them: the hosts are IP addresses
 * (a resolver cannot be found by name), IPv6 with a port in brackets (`[::1]:5353`).
 */
export function parseDnsServers(raw: string | undefined): string[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  return raw.split(',').map((entry) => {
    const server = entry.trim();
    const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(server);
    const hostPort = /^([^:]+)(?::(\d{1,5}))?$/.exec(server);
    const [host, port] = bracketed
      ? [bracketed[1], bracketed[2]]
      : hostPort
        ? [hostPort[1], hostPort[2]]
        : [server, undefined];
    if (!isIP(host) || (port !== undefined && (Number(port) < 1 || Number(port) > 65535))) {
      throw new ConfigError(
        'DNS_SERVERS',
        `must be comma-separated IP addresses with optional ports (1.1.1.1, 127.0.0.1:5353, [::1]:53), got "${server}"`,
      );
    }
    return server;
  });
}

function parseFlag(env: Env, variable: string): boolean {
  const raw = env[variable]?.trim().toLowerCase();
  if (raw === undefined || raw === '' || raw === '0' || raw === 'false') return false;
  if (raw === '1' || raw === 'true') return true;
  throw new ConfigError(variable, `must be 1 or 0, got "${env[variable]}"`);
}

function parseBounceDomain(raw: string | undefined, publicUrl: string): string {
  const domain = (raw?.trim() || new URL(publicUrl).hostname).toLowerCase().replace(/\.$/, '');
  if (!/^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/.test(domain)) {
    throw new ConfigError('BOUNCE_DOMAIN', `must be a host name, got "${domain}"`);
  }
  return domain;
}

function parseRateLimits(env: Env): RateLimitConfig {
  const windowSeconds = parseInteger(env, 'RATE_LIMIT_WINDOW_SECONDS', 1, 1, 3600);
  return {
    general: parseInteger(env, 'RATE_LIMIT', 100, 1, 1_000_000),
    send: parseInteger(env, 'RATE_LIMIT_SEND', 10, 1, 1_000_000),
    anonymous: parseInteger(env, 'RATE_LIMIT_ANONYMOUS', 20, 1, 1_000_000),
    mailAgents: parseInteger(env, 'RATE_LIMIT_MAIL_AGENTS', 300, 1, 1_000_000),
    windowSeconds,
    burstFactor: parseInteger(env, 'RATE_LIMIT_BURST_FACTOR', 2, 0, 100),
    burstWindowSeconds: parseInteger(
      env,
      'RATE_LIMIT_BURST_WINDOW_SECONDS',
      10,
      windowSeconds,
      86400,
    ),
  };
}

function parseInteger(
  env: Env,
  variable: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = env[variable];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || value < min || value > max) {
    throw new ConfigError(variable, `must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function parseRetentionDays(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return 30;
  const value = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw.trim()) || value <= 0 || value > 36_500) {
    throw new ConfigError(
      'MESSAGE_RETENTION_DAYS',
      `must be a number of days above 0 (fractions allowed), at most 36500, got "${raw}"`,
    );
  }
  return value;
}

function parseOptionalInteger(
  env: Env,
  variable: string,
  min: number,
  max: number,
): number | undefined {
  const raw = env[variable];
  if (raw === undefined || raw.trim() === '') return undefined;
  return parseInteger(env, variable, min, min, max);
}

function parseDkim(env: Env): DkimConfig | undefined {
  const domain = env.DKIM_DOMAIN?.trim();
  const file = env.DKIM_PRIVATE_KEY_FILE;
  if (!domain && !file && !env.DKIM_PRIVATE_KEY) return undefined;
  if (!domain) throw new ConfigError('DKIM_DOMAIN', 'is required when a DKIM key is given');
  let privateKey = env.DKIM_PRIVATE_KEY;
  if (!privateKey && file) {
    try {
      privateKey = readFileSync(resolve(file), 'utf8');
    } catch {
      throw new ConfigError('DKIM_PRIVATE_KEY_FILE', `cannot be read: ${file}`);
    }
  }
  if (!privateKey || !/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(privateKey)) {
    throw new ConfigError(
      file ? 'DKIM_PRIVATE_KEY_FILE' : 'DKIM_PRIVATE_KEY',
      'must hold a PEM private key',
    );
  }
  const selector = env.DKIM_SELECTOR?.trim() || 'herald';
  if (!/^[A-Za-z0-9._-]{1,63}$/.test(selector)) {
    throw new ConfigError('DKIM_SELECTOR', 'must be a DNS label');
  }
  return { domain, selector, privateKey };
}

// Checked here because pino, left to find out, stops the process with "unknown level"
// without saying which setting holds it.
function parseLogLevel(value: string | undefined): LogLevel {
  if (value === undefined || value.trim() === '') return 'info';
  const level = value.trim().toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}, got "${value}"`);
  }
  return level as LogLevel;
}

function parseSignup(value: string | undefined): SignupMode {
  if (value === undefined || value.trim() === '') return 'first';
  const mode = value.trim().toLowerCase();
  if (!(SIGNUP_MODES as readonly string[]).includes(mode)) {
    throw new ConfigError('SIGNUP', `must be one of ${SIGNUP_MODES.join(', ')}, got "${value}"`);
  }
  return mode as SignupMode;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError('PORT', `must be an integer from 0 to 65535, got "${value}"`);
  }
  return port;
}

function parseUrl(variable: string, value: string, protocols: string[]): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(variable, `is not a URL`);
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(variable, `must start with ${protocols.join(' or ')}//`);
  }
  return value;
}

/**
 * The master secret keys cursors, erasure hashes, sessions and sealed keys: a short one could
 * be guessed offline from any of them, so a set value shorter than 32 characters (an empty one
 * included) stops the process instead of being used.
 */
function parseSecret(value: string | undefined): string {
  if (value === undefined) return readOrCreateSecret(resolve('var/secret'));
  if (value.length < 32) {
    throw new ConfigError('HERALD_SECRET', `must be at least 32 characters, got ${value.length}`);
  }
  return value;
}

/**
 * A self-hosted install should work without ceremony, so the master secret is generated on
 * first start and kept on disk. Losing it invalidates keys and cursors, hence the file mode.
 */
function readOrCreateSecret(path: string): string {
  if (existsSync(path)) {
    const secret = readFileSync(path, 'utf8').trim();
    if (secret.length >= 32) return secret;
    throw new ConfigError('HERALD_SECRET', `file ${path} holds fewer than 32 characters`);
  }
  mkdirSync(dirname(path), { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(path, secret + '\n', { mode: 0o600, flag: 'wx' });
  return secret;
}
