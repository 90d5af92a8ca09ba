import { isDayWithin, latestToday, parseIsoDate } from './calendar-date';

describe('parseIsoDate', () => {
  it.each([
    ['2024-05-01', '2024-05-01', '2024-05-01T00:00:00.000Z'],
    ['2024-02-29', '2024-02-29', '2024-02-29T00:00:00.000Z'],
    ['2024-05-01T10:00Z', '2024-05-01', '2024-05-01T10:00:00.000Z'],
    ['2024-05-01T10:00:30.5+02:00', '2024-05-01', '2024-05-01T08:00:30.500Z'],
  ])('reads %s', (text, day, instant) => {
    const parsed = parseIsoDate(text);
    expect(parsed?.day).toBe(day);
    expect(parsed?.instant.toISOString()).toBe(instant);
  });

  it.each([
    '20240501',
    '2024-5-1',
    '2023-02-29',
    '1900-02-29',
    '2024-04-31',
    '2024-13-01',
    '2024-00-10',
    '2024-05-01T24:00Z',
    '2024-05-01T10:00',
    '2024-05-01T10:00+15:00',
    '2024-05-01 10:00Z',
    '+002024-05-01',
    'yesterday',
  ])('refuses %s', (text) => {
    expect(parseIsoDate(text)).toBeUndefined();
  });

  it('reads year 0000 as a date (ranges refuse it, not the parser)', () => {
    const parsed = parseIsoDate('0000-01-01')!;
    expect(parsed.day).toBe('0000-01-01');
    expect(isDayWithin(parsed, '1900-01-01', '2200-12-31')).toBe(false);
  });
});

describe('latestToday', () => {
  it('is the date already reached somewhere on Earth', () => {
    expect(latestToday(new Date('2024-05-01T09:59:59Z'))).toBe('2024-05-01');
    expect(latestToday(new Date('2024-05-01T10:00:00Z'))).toBe('2024-05-02');
  });
});
