import { cellFor, columnsFor } from '../../test/support/csv-row-cases';
import { randomness } from '../../test/support/seeded-random';
import { checkAgainstDto } from '../platform/errors/validation.pipe';
import { recordToBody } from '../subscribers/subscriber-csv';
import { CreateSubscriberDto } from '../subscribers/subscriber.dto';
import { QuickDtoCheck } from './quick-dto-check';

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
