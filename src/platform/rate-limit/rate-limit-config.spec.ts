import { loadConfig } from '../config/config';
import { ConfigError } from '../config/config-error';
import { limitClassOf } from './limit-class';

const base = { HERALD_SECRET: 'x'.repeat(40) };

describe('rate limit configuration', () => {
  it('defaults to 100 requests a second, 10 for sends, 20 per address (300 for mail agents), with a 2x burst over 10 s', () => {
    expect(loadConfig(base).rateLimits).toEqual({
      general: 100,
      send: 10,
      anonymous: 20,
      mailAgents: 300,
      windowSeconds: 1,
      burstFactor: 2,
      burstWindowSeconds: 10,
    });
  });

  it('reads every variable', () => {
    const config = loadConfig({
      ...base,
      RATE_LIMIT: '500',
      RATE_LIMIT_SEND: '50',
      RATE_LIMIT_ANONYMOUS: '30',
      RATE_LIMIT_MAIL_AGENTS: '1000',
      RATE_LIMIT_WINDOW_SECONDS: '60',
      RATE_LIMIT_BURST_FACTOR: '0',
      RATE_LIMIT_BURST_WINDOW_SECONDS: '600',
    });
    expect(config.rateLimits).toEqual({
      general: 500,
      send: 50,
      anonymous: 30,
      mailAgents: 1000,
      windowSeconds: 60,
      burstFactor: 0,
      burstWindowSeconds: 600,
    });
  });

  it.each([
    ['RATE_LIMIT', '0'],
    ['RATE_LIMIT', '1.5'],
    ['RATE_LIMIT', 'lots'],
    ['RATE_LIMIT_SEND', '-1'],
    ['RATE_LIMIT_WINDOW_SECONDS', '0'],
    ['RATE_LIMIT_BURST_FACTOR', '1000'],
  ])('stops at start-up on %s=%s, naming the variable', (variable, value) => {
    expect(() => loadConfig({ ...base, [variable]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, [variable]: value })).toThrow(variable);
  });

  it('refuses a burst window shorter than the window', () => {
    expect(() =>
      loadConfig({
        ...base,
        RATE_LIMIT_WINDOW_SECONDS: '10',
        RATE_LIMIT_BURST_WINDOW_SECONDS: '5',
      }),
    ).toThrow('RATE_LIMIT_BURST_WINDOW_SECONDS');
  });
});

describe('limitClassOf', () => {
  it('puts the two send routes on the send budget and the rest on the general one', () => {
    expect(limitClassOf('POST', '/v1/transactional/send')).toBe('send');
    expect(limitClassOf('post', '/v1/campaigns/:id/send')).toBe('send');
    expect(limitClassOf('GET', '/v1/transactional/:id')).toBe('general');
    expect(limitClassOf('POST', '/v1/subscribers')).toBe('general');
  });
});
