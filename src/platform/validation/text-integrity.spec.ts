import { childPath } from './field-path';
import {
  containsInvalidText,
  findInvalidText,
  hasInvalidCharacters,
  replaceInvalidCharacters,
} from './text-integrity';

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

describe('containsInvalidText', () => {
  it('finds what findInvalidText finds, in any nesting', () => {
    let state = 3;
    const random = (below: number) => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state % below;
    };
    const texts = ['ok', '', 'a\0b', '\uD800', 'x\uDC00', '\uD83D\uDE00', 'é'];
    const value = (depth: number): unknown => {
      const kind = random(depth > 3 ? 3 : 5);
      if (kind === 0) return texts[random(texts.length)];
      if (kind === 1) return random(2) === 0 ? 42 : null;
      if (kind === 2) return true;
      if (kind === 3) return Array.from({ length: random(4) }, () => value(depth + 1));
      const entries: Record<string, unknown> = {};
      for (let count = random(4); count > 0; count--) {
        entries[texts[random(texts.length)] + String(count)] = value(depth + 1);
      }
      return entries;
    };
    for (let round = 0; round < 5_000; round++) {
      const sample = value(0);
      const expected = findInvalidText(sample, () => '', 1).length > 0;
      expect([sample, containsInvalidText(sample)]).toEqual([sample, expected]);
    }
  });
});
