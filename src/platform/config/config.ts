import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Herald's configuration, parsed and validated once at start-up (see README for each variable). */
export interface HeraldConfig {
  databaseUrl: string;
  redisUrl: string;
  port: number;
  smtpUrl: string | undefined;
  outboxDir: string;
  publicUrl: string;
  queuePrefix: string;
  secret: string;
  logLevel: string;
}

export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`Invalid configuration: ${variable} ${problem}`);
  }
}

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env): HeraldConfig {
  const port = parsePort(env.PORT ?? '3000');
  const databaseUrl = parseUrl(
    'DATABASE_URL',
    env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/herald',
    ['postgres:', 'postgresql:'],
  );
  const redisUrl = parseUrl('REDIS_URL', env.REDIS_URL ?? 'redis://127.0.0.1:6379', [
    'redis:',
    'rediss:',
  ]);
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
    redisUrl,
    port,
    smtpUrl,
    outboxDir: resolve(env.OUTBOX_DIR ?? 'var/outbox'),
    publicUrl,
    queuePrefix,
    secret: env.HERALD_SECRET ?? readOrCreateSecret(resolve('var/secret')),
    logLevel: env.LOG_LEVEL ?? 'info',
  };
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
