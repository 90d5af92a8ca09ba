import { parseSegmentFilter } from './segment-filter';
import { redactEmail } from './segment-erasure';

const EMAIL = 'ada@example.com';
const TOKEN = 'erased:hash';

describe('redactEmail', () => {
  it('replaces the erased email in eq, neq and in conditions, however it was written', () => {
    const filter = {
      or: [
        { field: 'email', op: 'eq', value: ' Ada@Example.com' },
        { and: [{ field: 'email', op: 'not_in', value: ['bob@example.com', EMAIL] }] },
      ],
    };
    const redacted = redactEmail(filter, EMAIL, TOKEN);
    expect(redacted).toEqual({
      or: [
        { field: 'email', op: 'eq', value: TOKEN },
        { and: [{ field: 'email', op: 'not_in', value: ['bob@example.com', TOKEN] }] },
      ],
    });
    expect(() => parseSegmentFilter(redacted)).not.toThrow();
    expect(filter.or[0]).toEqual({ field: 'email', op: 'eq', value: ' Ada@Example.com' });
  });

  it('returns the same object when the email is not named', () => {
    const filter = {
      and: [
        { field: 'email', op: 'eq', value: 'bob@example.com' },
        { field: 'city', op: 'eq', value: EMAIL },
        { field: 'email', op: 'exists' },
      ],
    };
    expect(redactEmail(filter, EMAIL, TOKEN)).toBe(filter);
    expect(redactEmail({}, EMAIL, TOKEN)).toEqual({});
  });
});
