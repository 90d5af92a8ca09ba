import { escapeLike } from './subscriber-search.repository';

describe('escapeLike', () => {
  it('makes LIKE wildcards and the escape character match themselves', () => {
    expect(escapeLike('a%b_c\\d')).toBe('a\\%b\\_c\\\\d');
    expect(escapeLike('ada@example.com')).toBe('ada@example.com');
  });
});
