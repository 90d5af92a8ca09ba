import { InvalidRequestError, ValidationFailedError } from '../platform/errors/api-errors';
import { parseStatsWindow } from './stats-window';

describe('parseStatsWindow', () => {
  it('defaults to the last 30 days, today included', () => {
    expect(parseStatsWindow(undefined, undefined, '2026-03-01')).toEqual({
      from: '2026-01-31',
      to: '2026-03-01',
    });
  });

  it('takes real dates, and a window of one day', () => {
    expect(parseStatsWindow('2024-02-29', '2024-02-29')).toEqual({
      from: '2024-02-29',
      to: '2024-02-29',
    });
  });

  it('refuses what is no date with 400', () => {
    for (const bad of ['2026-02-30', '20260101', 'yesterday', ['2026-01-01'], '1999-12-31']) {
      expect(() => parseStatsWindow(bad, '2026-03-01')).toThrow(InvalidRequestError);
    }
  });

  it('refuses a reversed or too long window with 422 on from', () => {
    expect(() => parseStatsWindow('2026-03-02', '2026-03-01')).toThrow(ValidationFailedError);
    expect(() => parseStatsWindow('2024-01-01', '2026-03-01')).toThrow(ValidationFailedError);
  });
});
