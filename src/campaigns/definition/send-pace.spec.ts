import { expectedFinishAt } from './send-pace';

const now = new Date('2026-11-27T10:00:00Z');
const sending = {
  status: 'sending' as const,
  recipientCount: 1000,
  deliveredCount: 300,
  failedCount: 100,
  ratePerMinute: null as number | null,
  startedAt: new Date('2026-11-27T09:58:00Z'),
};

describe('expectedFinishAt', () => {
  it('is what is left at the slower of the campaign and account rates', () => {
    // 600 left at 600 a minute: one minute.
    expect(expectedFinishAt({ ...sending, ratePerMinute: 600 }, undefined, now)).toEqual(
      new Date('2026-11-27T10:01:00Z'),
    );
    // The account allows only 300 a minute: two.
    expect(expectedFinishAt({ ...sending, ratePerMinute: 600 }, 300, now)).toEqual(
      new Date('2026-11-27T10:02:00Z'),
    );
    expect(expectedFinishAt(sending, 1200, now)).toEqual(new Date('2026-11-27T10:00:30Z'));
  });

  it('unthrottled, extrapolates the pace kept since the start', () => {
    // 400 sent in 2 minutes; 600 more take 3.
    expect(expectedFinishAt(sending, undefined, now)).toEqual(new Date('2026-11-27T10:03:00Z'));
    expect(
      expectedFinishAt({ ...sending, deliveredCount: 0, failedCount: 0 }, undefined, now),
    ).toBe(null);
  });

  it('says nothing unless the campaign is sending', () => {
    for (const status of ['draft', 'scheduled', 'paused', 'sent', 'cancelled'] as const) {
      expect(expectedFinishAt({ ...sending, status, ratePerMinute: 600 }, 600, now)).toBeNull();
    }
  });
});
