import { doublingDelay } from './doubling-delay';

describe('doublingDelay', () => {
  it('starts at the first pause, doubles, and stays at the longest', () => {
    expect([1, 2, 3, 4, 5, 6, 50, 5000].map((n) => doublingDelay(n, 250, 5_000))).toEqual([
      250, 500, 1_000, 2_000, 4_000, 5_000, 5_000, 5_000,
    ]);
  });

  it('takes an attempt of 0 as the first', () => {
    expect(doublingDelay(0, 100, 2_000)).toBe(100);
  });
});
