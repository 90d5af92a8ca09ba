import { ConfigError } from './config-error';

type Env = Record<string, string | undefined>;

export interface RedisAddress {
  host: string;
  port: number;
}

/** What every kind of Redis deployment may ask of a client: credentials, TLS, a database. */
export interface RedisAuth {
  username?: string;
  password?: string;
  tls: boolean;
}

/**
 * Where Herald's Redis is, as REDIS_URL and REDIS_CLUSTER_NODES say:
 * - `single`: one server, `redis://` or `rediss://` (the URL as ioredis reads it);
 * - `sentinel`: `redis+sentinel://[[user]:password@]host:port[,host:port…]/<master-name>`,
 *   the sentinels to ask for the master of that name (password: the master's; a sentinel
 *   protected by a password of its own takes `?sentinelPassword=`); `rediss+sentinel://` for TLS;
 * - `cluster`: REDIS_CLUSTER_NODES=`host:port,…`, some nodes of a Redis Cluster (the rest are
 *   found from them); credentials and TLS from REDIS_URL when it is set too.
 */
export type RedisTarget =
  | { kind: 'single'; url: string }
  | ({ kind: 'sentinel'; sentinels: RedisAddress[]; masterName: string; db: number } & RedisAuth & {
        sentinelPassword?: string;
      })
  | ({ kind: 'cluster'; nodes: RedisAddress[] } & RedisAuth);

const SENTINEL_URL =
  /^(rediss?)\+sentinel:\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^/?#]+)\/([^/?#]+)\/?(?:\?([^#]*))?$/;

/** Neither REDIS_URL nor REDIS_CLUSTER_NODES: no Redis (the shared store is PostgreSQL). */
export function parseRedis(env: Env): RedisTarget | undefined {
  const url = env.REDIS_URL?.trim() || undefined;
  const clusterNodes = env.REDIS_CLUSTER_NODES?.trim() || undefined;
  if (clusterNodes !== undefined) {
    const nodes = parseAddresses('REDIS_CLUSTER_NODES', clusterNodes);
    if (url === undefined) return { kind: 'cluster', nodes, tls: false };
    const parsed = parseServerUrl(url);
    return {
      kind: 'cluster',
      nodes,
      username: decode(parsed.username),
      password: decode(parsed.password),
      tls: parsed.protocol === 'rediss:',
    };
  }
  if (url !== undefined && /^rediss?\+sentinel:/.test(url)) return parseSentinelUrl(url);
  if (url === undefined) return undefined;
  parseServerUrl(url);
  return { kind: 'single', url };
}

function parseServerUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError('REDIS_URL', 'is not a URL');
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new ConfigError(
      'REDIS_URL',
      'must start with redis://, rediss://, redis+sentinel:// or rediss+sentinel://',
    );
  }
  return url;
}

function parseSentinelUrl(value: string): RedisTarget {
  const match = SENTINEL_URL.exec(value);
  if (!match) {
    throw new ConfigError(
      'REDIS_URL',
      'must read redis+sentinel://[:password@]host:port[,host:port…]/<master-name>',
    );
  }
  const [, scheme, username, password, hosts, masterName, query] = match;
  const params = new URLSearchParams(query ?? '');
  const db = Number(params.get('db') ?? '0');
  if (!Number.isInteger(db) || db < 0 || db > 15) {
    throw new ConfigError('REDIS_URL', 'db= must be an integer from 0 to 15');
  }
  return {
    kind: 'sentinel',
    sentinels: parseAddresses('REDIS_URL', hosts),
    masterName: decodeURIComponent(masterName),
    db,
    username: decode(username),
    password: decode(password),
    sentinelPassword: params.get('sentinelPassword') ?? undefined,
    tls: scheme === 'rediss',
  };
}

function parseAddresses(variable: string, list: string): RedisAddress[] {
  return list.split(',').map((entry) => {
    const match = /^\s*(\[[0-9a-fA-F:.]+\]|[^\s:,[\]]+):(\d{1,5})\s*$/.exec(entry);
    const port = Number(match?.[2]);
    if (!match || port < 1 || port > 65535) {
      throw new ConfigError(
        variable,
        `must list host:port pairs separated by commas, got "${entry}"`,
      );
    }
    return { host: match[1].replace(/^\[|\]$/g, ''), port };
  });
}

function decode(part: string | undefined): string | undefined {
  return part ? decodeURIComponent(part) : undefined;
}
