import { ComposedStatement } from './composed-statement';

describe('ComposedStatement.build', () => {
  function statement(): ComposedStatement {
    const composed = new ComposedStatement();
    composed.with(`picked AS (SELECT ${composed.param(7)}::int AS n)`);
    return composed;
  }

  it('names the statement after its text, so one shape is prepared once per connection', () => {
    const first = statement().build('SELECT n FROM picked');
    const again = statement().build('SELECT n FROM picked');
    const other = statement().build('SELECT n + 1 FROM picked');
    expect(first).toEqual({
      name: expect.stringMatching(/^composed_/) as string,
      text: 'WITH picked AS (SELECT $1::int AS n)\nSELECT n FROM picked',
      values: [7],
    });
    expect(again.name).toBe(first.name);
    expect(other.name).not.toBe(first.name);
  });

  it('leaves the name out when named statements are off (behind PgBouncer before 1.21)', () => {
    const built = statement().build('SELECT n FROM picked', { named: false });
    expect(built).toEqual({
      text: 'WITH picked AS (SELECT $1::int AS n)\nSELECT n FROM picked',
      values: [7],
    });
    expect('name' in built).toBe(false);
  });
});
