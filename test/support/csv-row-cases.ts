// Generators of CSV rows for the differential tests of the import's row checks
// (quick-dto-check.spec.ts, fast-csv-row.spec.ts): mostly plain cells, and now and then one
// near or past a limit of the API's subscriber rules.

import { latestToday } from '../../src/platform/validation/calendar-date';
import { CSV_FIELDS, CsvColumn } from '../../src/subscribers/subscriber-csv';
import { Random } from './seeded-random';

const today = latestToday();
const tomorrow = new Date(Date.parse(today) + 86_400_000).toISOString().slice(0, 10);

/** Text around a length limit, in characters that count differently (pairs, variation selectors). */
function textNear(random: Random, limit: number): string {
  const length = Math.max(1, limit + random.int(5) - 3);
  const unit = random.pick(['a', 'é', '😀', 'x\uFE0F', ' ', '"', ',', '\t', '\\']);
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
    // Around the plain form FastCsvRows takes on its own.
    () => `A@B.CO`,
    () => `x@y.z`,
    () => `{curly}|pipe/slash=eq?q^h~t@example.com`,
    () => `user@exa-mple.com`,
    () => `user@example-.com`,
    () => `user@-example.com`,
    () => `user@123.example.com`,
    () => `user@example.com.`,
    () => `user@.example.com`,
    () => `user@example..com`,
    () => `user@example.xn--p1ai`,
    () => `user@example.museum`,
    () => `user@example.c0m`,
    () => `user@${'t'.repeat(64)}.example`,
    () => `user@example.${'t'.repeat(63)}`,
    () => `user@example.${'t'.repeat(64)}`,
    () => `a@b@example.com`,
    () => `back\\slash@example.com`,
    () => `tab\tin@example.com`,
    () => `${'l'.repeat(64)}@${'d'.repeat(63)}.${'e'.repeat(63)}.${'f'.repeat(59)}.com`,
    () => `${'l'.repeat(64)}@${'d'.repeat(63)}.${'e'.repeat(63)}.${'f'.repeat(60)}.com`,
    () => `\u00A0user@example.com\u2003`,
    () => `user@example.com\uFE0F`,
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
    () => 'tab\there',
    () => 'back\\slash',
    () => 'line\nend',
    () => '-0',
    () => '1.50',
    () => ' 42',
    () => 'False',
    () => "'=formula",
    () => 'é'.repeat(5000 + random.int(1000)),
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
function plainCell(random: Random, target: string, ascii: boolean): string {
  if (target === 'email') return `Person${random.int(1e6)}@Example.com`;
  if (target === 'interests' || target === 'tags') return 'news, offers';
  if (target === 'birthdate') return '1990-05-01';
  if (target === 'social_media') return '[{"platform":"twitter","profile_id":"ada"}]';
  if (target.startsWith('custom_fields.')) return random.pick(['gold', '42', 'true']);
  return random.pick([`Value ${random.int(1000)}`, ascii ? 'Zoe :)' : 'Zoë 😀', '']);
}

/** A row's cell (`ascii`: plain ones in ASCII): mostly plain; now and then (more often in some rows) one near or past a limit. */
export function cellFor(random: Random, target: string, risk: number, ascii = false): string {
  if (random.next() >= risk) return plainCell(random, target, ascii);
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

/** A header of some fields (email always; `dates`: birthdate and social_media may be) and some custom columns, up to 120 custom ones. */
export function columnsFor(random: Random, dates = true): CsvColumn[] {
  const fields = CSV_FIELDS.filter(
    (field) =>
      field === 'email' ||
      ((dates || (field !== 'birthdate' && field !== 'social_media')) && random.next() < 0.4),
  );
  const customCount = random.next() < 0.05 ? 95 + random.int(10) : random.int(4);
  const custom = Array.from({ length: customCount }, (_, i) => `custom_fields.key${i}`);
  return [...fields, ...custom].map((target) => ({ header: target, target }) as CsvColumn);
}
