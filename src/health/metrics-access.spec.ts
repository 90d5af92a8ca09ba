import { mayReadMetrics } from './metrics-access';

describe('mayReadMetrics', () => {
  const token = 'a-metrics-token-of-32-characters';

  it('lets anyone read when METRICS_TOKEN is unset', () => {
    expect(mayReadMetrics({ token: undefined, workerPort: undefined }, undefined)).toBe(true);
  });

  it('takes only the token, as a bearer', () => {
    const config = { token, workerPort: undefined };
    expect(mayReadMetrics(config, `Bearer ${token}`)).toBe(true);
    expect(mayReadMetrics(config, `bearer ${token}`)).toBe(true);
    expect(mayReadMetrics(config, undefined)).toBe(false);
    expect(mayReadMetrics(config, token)).toBe(false);
    expect(mayReadMetrics(config, `Bearer ${token}x`)).toBe(false);
    expect(mayReadMetrics(config, `Bearer ${token.slice(1)}`)).toBe(false);
    expect(mayReadMetrics(config, `Basic ${token}`)).toBe(false);
  });
});
