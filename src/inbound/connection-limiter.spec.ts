import { ConnectionLimiter } from './connection-limiter';

describe('ConnectionLimiter', () => {
  it('admits a client address up to its budget per sliding minute, others unaffected', () => {
    let now = 1_000_000;
    const limiter = new ConnectionLimiter(3, () => now);
    expect([1, 2, 3, 4].map(() => limiter.admit('10.0.0.1'))).toEqual([true, true, true, false]);
    expect(limiter.admit('10.0.0.2')).toBe(true);
    now += 30_000;
    expect(limiter.admit('10.0.0.1')).toBe(false);
    now += 30_001; // the first three connections are now more than a minute old
    expect(limiter.admit('10.0.0.1')).toBe(true);
  });
});
