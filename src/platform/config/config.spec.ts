import { resolve } from 'node:path';
import { loadConfig } from './config';
import { ConfigError } from './config-error';
import { WORKER_ROLES } from './worker-roles';

const base = { HERALD_SECRET: 'x'.repeat(40) };

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig(base);
    const socket = encodeURIComponent(resolve('var/postgres/run'));
    expect(config).toMatchObject({
      // The embedded PostgreSQL, on its Unix socket; no Redis.
      databaseUrl: `postgresql://postgres@localhost/herald?host=${socket}`,
      embeddedDatabase: { dir: resolve('var/postgres'), runAsUser: 'postgres' },
      redisUrl: undefined,
      redis: undefined,
      port: 3000,
      smtpUrl: undefined,
      publicUrl: 'http://localhost:3000',
      queuePrefix: 'herald',
      logLevel: 'info',
    });
  });

  it('goes straight to PostgreSQL unless a pooler is named, with named statements only then', () => {
    const own = { ...base, DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/herald' };
    expect(loadConfig(own).embeddedDatabase).toBeUndefined();
    expect(loadConfig(own).database).toEqual({
      directUrl: 'postgresql://postgres@127.0.0.1:5432/herald',
      pooler: 'none',
      namedStatements: true,
      poolSize: 10,
    });
    const bounced = loadConfig({
      ...base,
      DATABASE_URL: 'postgresql://herald@bouncer:6432/herald',
      DATABASE_DIRECT_URL: 'postgresql://herald@db:5432/herald',
      DATABASE_POOLER: 'pgbouncer',
      DB_POOL_SIZE: '25',
    });
    expect(bounced.database).toEqual({
      directUrl: 'postgresql://herald@db:5432/herald',
      pooler: 'pgbouncer',
      namedStatements: false,
      poolSize: 25,
    });
    const modern = { ...base, DATABASE_POOLER: 'pgbouncer', DB_NAMED_STATEMENTS: '1' };
    expect(loadConfig(modern).database.namedStatements).toBe(true);
  });

  it('closes within 30 s after SIGTERM unless told otherwise, draining inside the grace', () => {
    expect(loadConfig(base).shutdown).toEqual({ graceSeconds: 30, drainSeconds: 0 });
    const set = { ...base, SHUTDOWN_GRACE_SECONDS: '60', SHUTDOWN_DRAIN_SECONDS: '5' };
    expect(loadConfig(set).shutdown).toEqual({ graceSeconds: 60, drainSeconds: 5 });
  });

  it('leaves campaign mail unthrottled unless SEND_RATE_PER_MINUTE is set', () => {
    expect(loadConfig(base).sendRatePerMinute).toBeUndefined();
    expect(loadConfig({ ...base, SEND_RATE_PER_MINUTE: '600' }).sendRatePerMinute).toBe(600);
  });

  it('leaves the worker priority to the process kind unless WORKER_NICE is set', () => {
    expect(loadConfig(base).workerNice).toBeUndefined();
    expect(loadConfig({ ...base, WORKER_NICE: '0' }).workerNice).toBe(0);
    expect(loadConfig({ ...base, WORKER_NICE: '19' }).workerNice).toBe(19);
  });

  it('reads WORKER_ROLES as every kind of work, a list, or a list of kinds to leave', () => {
    const roles = (value?: string) => loadConfig({ ...base, WORKER_ROLES: value }).workerRoles;
    expect(roles()).toEqual([...WORKER_ROLES]);
    expect(roles('all')).toEqual([...WORKER_ROLES]);
    expect(roles(' Transactional ')).toEqual(['transactional']);
    expect(roles('webhooks,campaigns')).toEqual(['campaigns', 'webhooks']);
    expect(roles('-transactional, -inbound')).toEqual(
      WORKER_ROLES.filter((role) => role !== 'transactional' && role !== 'inbound'),
    );
  });

  it('takes LOG_LEVEL in any case', () => {
    expect(loadConfig({ ...base, LOG_LEVEL: 'DEBUG' }).logLevel).toBe('debug');
    expect(loadConfig({ ...base, LOG_LEVEL: 'silent' }).logLevel).toBe('silent');
  });

  it.each([
    ['PORT', 'eighty', /PORT/],
    ['PORT', '70000', /PORT/],
    ['DATABASE_URL', 'mysql://x', /DATABASE_URL/],
    ['REDIS_URL', 'not a url', /REDIS_URL/],
    ['SMTP_URL', 'http://mail', /SMTP_URL/],
    ['PUBLIC_URL', 'ftp://x', /PUBLIC_URL/],
    ['QUEUE_PREFIX', 'has spaces', /QUEUE_PREFIX/],
    ['DNS_SERVERS', 'dns.example.com', /DNS_SERVERS/],
    ['DNS_SERVERS', '127.0.0.1:99999', /DNS_SERVERS/],
    ['DNS_SERVERS', '1.1.1.1,,8.8.8.8', /DNS_SERVERS/],
    ['ALLOW_UNVERIFIED_FROM', 'yes please', /ALLOW_UNVERIFIED_FROM/],
    ['BOUNCE_DOMAIN', 'not a host!', /BOUNCE_DOMAIN/],
    ['HERALD_SECRET', '', /HERALD_SECRET must be at least 32 characters/],
    ['SIGNUP', 'sometimes', /SIGNUP must be one of first, open, closed/],
    ['MAIL_FROM', 'Herald <not an address>', /MAIL_FROM must be an address/],
    ['SEND_RATE_PER_MINUTE', '0', /SEND_RATE_PER_MINUTE must be an integer from 1/],
    ['SEND_RATE_PER_MINUTE', 'fast', /SEND_RATE_PER_MINUTE/],
    ['MAIL_FROM', 'a@example.com, b@example.com', /MAIL_FROM/],
    ['HERALD_SECRET', 'x'.repeat(31), /HERALD_SECRET/],
    ['DATABASE_DIRECT_URL', 'mysql://x', /DATABASE_DIRECT_URL/],
    ['DATABASE_POOLER', 'pgpool', /DATABASE_POOLER must be one of none, pgbouncer/],
    ['DB_POOL_SIZE', '0', /DB_POOL_SIZE/],
    ['DB_NAMED_STATEMENTS', 'maybe', /DB_NAMED_STATEMENTS/],
    ['SHUTDOWN_GRACE_SECONDS', '0', /SHUTDOWN_GRACE_SECONDS/],
    ['SHUTDOWN_DRAIN_SECONDS', '30', /SHUTDOWN_DRAIN_SECONDS must be less than/],
    ['METRICS_TOKEN', 'short', /METRICS_TOKEN/],
    ['METRICS_PORT', '70000', /METRICS_PORT/],
    ['WORKER_NICE', '20', /WORKER_NICE must be an integer from 0/],
    ['WORKER_NICE', '-5', /WORKER_NICE/],
    ['WORKER_ROLES', 'campaigns,mail', /WORKER_ROLES must be all or a list of campaigns, /],
    [
      'WORKER_ROLES',
      'campaigns,-inbound',
      /WORKER_ROLES must list roles to take or roles to leave/,
    ],
    ['WORKER_ROLES', ',', /WORKER_ROLES/],
    ['WORKER_ROLES', WORKER_ROLES.map((role) => `-${role}`).join(), /leaves no work to take/],
    [
      'LOG_LEVEL',
      'loud',
      /LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent/,
    ],
  ])('stops on a bad %s, naming it', (name, value, message) => {
    expect(() => loadConfig({ ...base, [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, [name]: value })).toThrow(message);
  });

  it('takes MAIL_FROM as given, else a no-reply address on the PUBLIC_URL host', () => {
    expect(loadConfig({ ...base, PUBLIC_URL: 'https://mail.example.com' }).mailFrom).toBe(
      'Herald <no-reply@mail.example.com>',
    );
    expect(loadConfig({ ...base, MAIL_FROM: ' Acme Ops <ops@acme.example> ' }).mailFrom).toBe(
      'Acme Ops <ops@acme.example>',
    );
  });

  it('reads the sender-domain settings', () => {
    expect(loadConfig(base)).toMatchObject({
      dnsServers: undefined,
      allowUnverifiedFrom: false,
      bounceDomain: 'localhost',
    });
    expect(
      loadConfig({
        ...base,
        DNS_SERVERS: ' 127.0.0.1:5353, 1.1.1.1 ,[::1]:53,::1',
        ALLOW_UNVERIFIED_FROM: '1',
        PUBLIC_URL: 'https://Mail.Example.com/herald',
      }),
    ).toMatchObject({
      dnsServers: ['127.0.0.1:5353', '1.1.1.1', '[::1]:53', '::1'],
      allowUnverifiedFrom: true,
      bounceDomain: 'mail.example.com',
    });
    expect(loadConfig({ ...base, BOUNCE_DOMAIN: 'Bounces.Example.NET.' }).bounceDomain).toBe(
      'bounces.example.net',
    );
  });
});
