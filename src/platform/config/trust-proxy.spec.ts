import { ConfigError } from './config-error';
import { loadConfig } from './config';

const base = { HERALD_SECRET: 'trust-proxy-spec-0123456789abcdef0123' };
const trustProxy = (value?: string) => loadConfig({ ...base, TRUST_PROXY: value }).trustProxy;

describe('TRUST_PROXY', () => {
  it('trusts nobody when unset, empty or 0', () => {
    expect(trustProxy()).toBe(false);
    expect(trustProxy('')).toBe(false);
    expect(trustProxy('0')).toBe(false);
  });

  it('reads 1 as the one proxy in front (a hop count, never Fastify’s trust-everyone true)', () => {
    expect(trustProxy('1')).toBe(1);
    expect(trustProxy('true')).toBe(1);
  });

  it('reads addresses and CIDRs', () => {
    expect(trustProxy('10.0.0.0/8, 127.0.0.1,::1, fd00::/8')).toEqual([
      '10.0.0.0/8',
      '127.0.0.1',
      '::1',
      'fd00::/8',
    ]);
  });

  it.each(['2', 'yes', '10.0.0.0/33', '::1/129', 'proxy.example', '10.0.0.0/8/1'])(
    'stops at start-up on %j, naming the variable',
    (value) => {
      expect(() => trustProxy(value)).toThrow(ConfigError);
      expect(() => trustProxy(value)).toThrow('TRUST_PROXY');
    },
  );
});
