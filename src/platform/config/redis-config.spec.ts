import { ConfigError } from './config-error';
import { parseRedis } from './redis-config';

describe('parseRedis', () => {
  it('is one local server by default, and the URL as given otherwise', () => {
    expect(parseRedis({})).toBeUndefined();
    expect(parseRedis({ REDIS_URL: 'rediss://:pw@cache:6380/2' })).toEqual({
      kind: 'single',
      url: 'rediss://:pw@cache:6380/2',
    });
  });

  it('reads a Sentinel group: its sentinels, the master name, credentials and TLS', () => {
    expect(
      parseRedis({
        REDIS_URL: 'redis+sentinel://:s%40cret@10.0.0.1:26379,[::1]:26380/my-master?db=3',
      }),
    ).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: '10.0.0.1', port: 26379 },
        { host: '::1', port: 26380 },
      ],
      masterName: 'my-master',
      db: 3,
      username: undefined,
      password: 's@cret',
      sentinelPassword: undefined,
      tls: false,
    });
    expect(
      parseRedis({
        REDIS_URL: 'rediss+sentinel://herald:pw@sentinel:26379/main?sentinelPassword=other',
      }),
    ).toMatchObject({
      kind: 'sentinel',
      username: 'herald',
      password: 'pw',
      sentinelPassword: 'other',
      tls: true,
    });
  });

  it('reads a Cluster from REDIS_CLUSTER_NODES, with credentials and TLS from REDIS_URL', () => {
    expect(parseRedis({ REDIS_CLUSTER_NODES: 'a:7000, b:7001' })).toEqual({
      kind: 'cluster',
      nodes: [
        { host: 'a', port: 7000 },
        { host: 'b', port: 7001 },
      ],
      tls: false,
    });
    expect(
      parseRedis({ REDIS_CLUSTER_NODES: 'a:7000', REDIS_URL: 'rediss://user:pw@ignored:1' }),
    ).toEqual({
      kind: 'cluster',
      nodes: [{ host: 'a', port: 7000 }],
      username: 'user',
      password: 'pw',
      tls: true,
    });
  });

  it.each([
    [{ REDIS_URL: 'http://cache:6379' }, /REDIS_URL must start with redis:\/\//],
    [{ REDIS_URL: 'not a url' }, /REDIS_URL is not a URL/],
    [{ REDIS_URL: 'redis+sentinel://a:26379' }, /redis\+sentinel:\/\/\[:password@\]host:port/],
    [{ REDIS_URL: 'redis+sentinel://a:26379,b/m' }, /REDIS_URL must list host:port pairs.*"b"/],
    [{ REDIS_URL: 'redis+sentinel://a:26379/m?db=99' }, /db= must be an integer/],
    [{ REDIS_CLUSTER_NODES: 'a:7000,b:99999' }, /REDIS_CLUSTER_NODES must list host:port/],
  ])('refuses %j naming the variable', (env, message) => {
    expect(() => parseRedis(env)).toThrow(ConfigError);
    expect(() => parseRedis(env)).toThrow(message);
  });
});
