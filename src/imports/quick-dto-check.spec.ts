import { randomness, Random } from '../../test/support/seeded-random';
import { checkAgainstDto } from '../platform/errors/validation.pipe';
import { latestToday } from '../platform/validation/calendar-date';
import { CSV_FIELDS, CsvColumn, recordToBody } from '../subscribers/subscriber-csv';
import { CreateSubscriberDto } from '../subscribers/subscriber.dto';
import { QuickDtoCheck } from './quick-dto-check';

const today = latestToday();
const tomorrow = new Date(Date.parse(today) + 86_400_000).toISOString().slice(0, 10);

/** Text around a length limit, in characters that count differently (pairs, variation selectors). */
function textNear(random: Random, limit: number): string {
  const length = Math.max(1, limit + random.int(5) - 3);
  const unit = random.pick(['a', 'é', '😀', 'x\uFE0F', ' ', '"', ',']);
  let text = '';
  while (text.length < length) text += unit;
  return random.next() < 0.5 ? text.slice(0, length) : text;
}

function emailCell(random: Random): string {
  return random.pick([
    () => `person${random.int(1e6)}@example.com`,
    () => `  First.Last+tag@Example.ORG `,
    () => `o'brien@sub.example.co.uk`,
    () => `josé@bücher.example`,
    () => `user@xn--bcher-kva.example`,
    () => `user@xn--zz.example`,
    () => `"quoted local"@example.com`,
    () => `dot.@example.com`,
    () => `.dot@example.com`,
    () => `two..dots@example.com`,
    () => `no-at-sign`,
    () => `user@localhost`,
    () => `user@example.123`,
    () => `user@[127.0.0.1]`,
    () => `user@-bad.example`,
    () => `user@under_score.example`,
    () => `${'l'.repeat(64)}@example.com`,
    () => `${'l'.repeat(65)}@example.com`,
    () => `a@${'d'.repeat(63)}.example`,
    () => `a@${'d'.repeat(64)}.example`,
    () => `a@${Array.from({ length: 5 }, () => 'd'.repeat(60)).join('.')}.com`,
    () => `user@exam ple.com`,
    () => `user@example.com\u0000`,
    () => `user\uD800@example.com`,
    () => `Display <user@example.com>`,
    () => `user@ｅxample.com`,
    () => `user@example.c`,
  ])();
}

function listCell(random: Random): string {
  return random.pick([
    () => 'news, offers',
    () => ' a ,, b ',
    () => Array.from({ length: 99 + random.int(4) }, (_, i) => `t${i}`).join(','),
    () => `x${'y'.repeat(98 + random.int(4))}`,
    () => JSON.stringify(['a', 'b']),
    () => JSON.stringify(['a', 7]),
    () => JSON.stringify({ not: 'a list' }),
    () => '[broken',
    () => '["\\u0000"]',
    () => '["\\ud800"]',
    () => JSON.stringify(Array.from({ length: 101 }, () => 'z')),
  ])();
}

function dateCell(random: Random): string {
  return random.pick([
    '1990-05-01',
    '1900-01-01',
    '1899-12-31',
    today,
    tomorrow,
    '2024-02-30',
    '2024-02-29',
    '2023-02-29',
    '1990-05-01T10:00:00Z',
    '1990-05-01T10:00:00+02:00',
    '1990-05-01T24:00:00Z',
    '1990-05-01T10:00',
    '19900501',
    'yesterday',
    '0099-01-01',
  ]);
}

function customCell(random: Random): string {
  return random.pick([
    () => 'gold',
    () => '42',
    () => '042',
    () => '-1.5',
    () => '1e3',
    () => 'true',
    () => 'null',
    () => '{"nested":{"a":[1,2]}}',
    () => '{"bad\\u0000key":1}',
    () => '"\\ud83d"',
    () => '[1,2',
    () => 'x'.repeat(4000 + random.int(2000)),
    () => '😀'.repeat(1500 + random.int(800)),
  ])();
}

const LIMITS: Record<string, number> = {
  first_name: 255,
  last_name: 255,
  phone: 50,
  address1: 255,
  address2: 255,
  city: 255,
  state: 255,
  zip: 32,
  country_code: 8,
  gender: 50,
  income_level: 50,
  membership_status: 50,
  status: 50,
  timezone: 64,
  id: 255,
  created_at: 255,
  updated_at: 255,
};

/** A cell that any rule takes: what most rows of a real file hold. */
function plainCell(random: Random, target: string): string {
  if (target === 'email') return `Person${random.int(1e6)}@Example.com`;
  if (target === 'interests' || target === 'tags') return 'news, offers';
  if (target === 'birthdate') return '1990-05-01';
  if (target === 'social_media') return '[{"platform":"twitter","profile_id":"ada"}]';
  if (target.startsWith('custom_fields.')) return random.pick(['gold', '42', 'true']);
  return random.pick([`Value ${random.int(1000)}`, 'Zoë 😀', '']);
}

/** A row's cell: mostly plain; now and then (more often in some rows) one near or past a limit. */
function cellFor(random: Random, target: string, risk: number): string {
  if (random.next() >= risk) return plainCell(random, target);
  if (random.next() < 0.15) return random.pick(['', '  ', '\u0000', 'a\uDC00b']);
  if (target === 'email') return emailCell(random);
  if (target === 'interests' || target === 'tags') return listCell(random);
  if (target === 'birthdate') return dateCell(random);
  if (target === 'social_media') {
    return random.pick([
      '[{"platform":"twitter","profile_id":"ada"}]',
      '[{"platform":"twitter"}]',
      'not json',
    ]);
  }
  if (target.startsWith('custom_fields.')) return customCell(random);
  const limit = LIMITS[target] ?? 255;
  return random.next() < 0.6 ? `Value ${random.int(1000)}` : textNear(random, limit);
}

/** A header of some fields (email always) and some custom columns, up to 120 custom ones. */
function columnsFor(random: Random): CsvColumn[] {
  const fields = CSV_FIELDS.filter((field) => field === 'email' || random.next() < 0.4);
  const customCount = random.next() < 0.05 ? 95 + random.int(10) : random.int(4);
  const custom = Array.from({ length: customCount }, (_, i) => `custom_fields.key${i}`);
  return [...fields, ...custom].map((target) => ({ header: target, target }) as CsvColumn);
}

/** The instance's own values, for comparing two instances field by field. */
function valuesOf(instance: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(instance).filter(([, value]) => value !== undefined));
}

describe('QuickDtoCheck on CSV rows, against checkAgainstDto', () => {
  const quick = new QuickDtoCheck(CreateSubscriberDto);

  it('accepts exactly the rows the DTO accepts (but social_media), with the same values', async () => {
    const random = randomness(20261127);
    let accepted = 0;
    let refused = 0;
    for (let round = 0; round < 8_000; round++) {
      const columns = columnsFor(random);
      const risk = random.pick([0, 0.02, 0.1, 0.5]);
      const cells = columns.map((column) => cellFor(random, column.target!, risk));
      const body = recordToBody(cells, columns);
      const fast = quick.accept(body);
      const full = await checkAgainstDto<CreateSubscriberDto>(CreateSubscriberDto, body);
      const context = JSON.stringify(body).slice(0, 400);
      if (fast) {
        expect({ context, details: full.details }).toEqual({ context, details: [] });
        expect(fast).toBeInstanceOf(CreateSubscriberDto);
        expect(valuesOf(fast)).toEqual(valuesOf(full.instance));
        accepted++;
      } else {
        // Only what it does not model may go to the DTO and pass there.
        if (full.details.length === 0)
          expect({ context, social: 'social_media' in body }).toEqual({ context, social: true });
        refused++;
      }
    }
    // Both sides were exercised in earnest.
    expect(accepted).toBeGreaterThan(1_000);
    expect(refused).toBeGreaterThan(1_000);
  });

  it('refuses what the DTO would refuse for a field it does not even look at', () => {
    expect(quick.accept({ email: 'a@b.example', nickname: 'x' })).toBeUndefined();
    expect(quick.accept({ first_name: 'no email' })).toBeUndefined();
    expect(quick.accept({ email: 'a@b.example', social_media: [] })).toBeUndefined();
  });

  it('gives the instance the DTO would give, email trimmed', () => {
    const instance = quick.accept({
      email: '  Ada@Example.com ',
      tags: ['a'],
      custom_fields: { plan: 'pro' },
    });
    expect(instance).toBeInstanceOf(CreateSubscriberDto);
    expect(valuesOf(instance!)).toEqual({
      email: 'Ada@Example.com',
      tags: ['a'],
      custom_fields: { plan: 'pro' },
    });
  });
});
