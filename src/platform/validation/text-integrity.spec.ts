import { childPath } from './field-path';
import { findInvalidText, hasInvalidCharacters, replaceInvalidCharacters } from './text-integrity';

describe('text integrity', () => {
  it.each([
    ['plain', false],
    ['emoji 😀 pair', false],
    ['nul \u0000', true],
    ['high \ud800 alone', true],
    ['low \udc00 alone', true],
    ['reversed \udc00\ud800', true],
    ['high at the end \ud83d', true],
  ])('%j → %s', (text, invalid) => {
    expect(hasInvalidCharacters(text)).toBe(invalid);
  });

  it('shows invalid characters as U+FFFD', () => {
    expect(replaceInvalidCharacters('a\u0000b\ud800c😀')).toBe('a\ufffdb\ufffdc😀');
  });

  it('finds bad strings and keys anywhere, in document order, up to a limit', () => {
    const value = { a: ['ok', '\u0000'], b: { ['x\ud800']: 1, c: { d: '\udc00' } } };
    expect(findInvalidText(value, childPath, 10)).toEqual([
      { path: 'a[1]', inKey: false },
      { path: 'b["x\ufffd"]', inKey: true },
      { path: 'b.c.d', inKey: false },
    ]);
    expect(findInvalidText(value, childPath, 2)).toHaveLength(2);
    expect(findInvalidText('\u0000', childPath, 10)).toEqual([{ path: '', inKey: false }]);
  });
});
