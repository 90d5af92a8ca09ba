import { WEBHOOK_SCHEDULE_MS } from './webhooks.settings';
import { nextAttempt } from './webhook-dispatcher';

describe('the webhook retry schedule', () => {
  const now = Date.UTC(2026, 10, 20, 12, 0, 0);

  it('follows Standard Webhooks: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h after the first', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7].map((made) => nextAttempt(made, now)!.getTime() - now);
    expect(delays).toEqual([
      5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
    ]);
    const total = WEBHOOK_SCHEDULE_MS.reduce((sum, delay) => sum + delay, 0);
    expect(total).toBeGreaterThan(24 * 3600_000); // retried for more than a day
  });

  it('stops after the eighth attempt', () => {
    expect(nextAttempt(8, now)).toBeNull();
  });
});
