import { cellFor, columnsFor } from '../../test/support/csv-row-cases';
import { randomness } from '../../test/support/seeded-random';
import { checkAgainstDto } from '../platform/errors/validation.pipe';
import { CsvColumn, recordToBody } from '../subscribers/subscriber-csv';
import { ABSENT, stageFields } from '../subscribers/subscriber-stage';
import { CreateSubscriberDto } from '../subscribers/subscriber.dto';
import { FastCsvRows } from './fast-csv-row';

const columnsOf = (...targets: string[]): CsvColumn[] =>
  targets.map((target) => ({ header: target, target }) as CsvColumn);

describe('FastCsvRows, against the DTO', () => {
  it('accepts only rows the DTO accepts, with the staged line the DTO instance gives', async () => {
    const random = randomness(20261129);
    let accepted = 0;
    let refused = 0;
    for (let round = 0; round < 8_000; round++) {
      // Half the rows in the form this path takes (no dates nor social profiles, ASCII text).
      const common = random.next() < 0.5;
      const columns = columnsFor(random, !common);
      const risk = random.pick([0, 0.02, 0.1, 0.5]);
      const cells = columns.map((column) => cellFor(random, column.target!, risk, common));
      const fast = new FastCsvRows(columns);
      const row = fast.accept(cells);
      if (!row) {
        refused++;
        continue;
      }
      const body = recordToBody(cells, columns);
      const full = await checkAgainstDto<CreateSubscriberDto>(CreateSubscriberDto, body);
      const context = JSON.stringify(cells).slice(0, 400);
      expect({ context, details: full.details }).toEqual({ context, details: [] });
      expect({ context, email: row.email }).toEqual({ context, email: full.instance.email });
      expect({ context, fields: row.fields }).toEqual({
        context,
        fields: stageFields(full.instance, fast.shape),
      });
      accepted++;
    }
    // Both sides were exercised in earnest.
    expect(accepted).toBeGreaterThan(1_000);
    expect(refused).toBeGreaterThan(1_000);
  });

  it('takes the common row: plain email, text, a list and custom cells', () => {
    const fast = new FastCsvRows(
      columnsOf('email', 'first_name', 'tags', 'custom_fields.plan', 'custom_fields.n'),
    );
    const row = fast.accept([' Ada@Example.com ', 'Ada\tL', 'news, offers', 'pro', '42']);
    expect(row?.email).toBe('Ada@Example.com');
    expect(fast.shape.fields.map((field) => field.name)).toEqual([
      'first_name',
      'tags',
      'custom_fields',
    ]);
    expect(row?.fields).toEqual(['Ada\\tL', '{"news","offers"}', '{"plan":"pro","n":42}']);
    // A blank cell leaves its field alone.
    expect(fast.accept(['a@b.example', ' ', '', '', ''])?.fields).toEqual([ABSENT, ABSENT, ABSENT]);
  });

  it('leaves to the DTO what it does not model, and rows the DTO refuses', () => {
    const fast = new FastCsvRows(columnsOf('email', 'birthdate', 'custom_fields.x', 'tags'));
    expect(fast.accept(['a@b.example', '1990-05-01', '', ''])).toBeUndefined();
    expect(fast.accept(['a@b.example', '', '{"a":1}', ''])).toBeUndefined();
    expect(fast.accept(['a@b.example', '', '', '["a"]'])).toBeUndefined();
    expect(fast.accept(['josé@b.example', '', '', ''])).toBeUndefined();
    expect(fast.accept(['not an email', '', '', ''])).toBeUndefined();
    expect(fast.accept(['', '', 'x', ''])).toBeUndefined();
    expect(fast.accept(['a@b.example', '', 'a\u0000b', ''])).toBeUndefined();
  });

  it('sends every row the other way when custom columns outnumber the keys allowed', () => {
    const keys = Array.from({ length: 101 }, (_, index) => `custom_fields.k${index}`);
    const fast = new FastCsvRows(columnsOf('email', ...keys));
    expect(fast.accept(['a@b.example', ...keys.map(() => '')])).toBeUndefined();
  });
});
