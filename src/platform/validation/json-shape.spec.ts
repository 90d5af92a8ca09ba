import { checkJsonShape, JSON_LIMITS } from './json-shape';

describe('checkJsonShape', () => {
  it.each([
    '{}',
    '{"a": [1, 2, {"b": "c"}], "d": null}',
    '"just a string"',
    '{"quoted": "braces { [ : , inside \\" a string"}',
    '['.repeat(32) + ']'.repeat(32),
  ])('passes %s', (text) => {
    expect(checkJsonShape(text)).toBeUndefined();
  });

  it('refuses nesting deeper than 32 levels, arrays or objects', () => {
    expect(checkJsonShape('['.repeat(33) + ']'.repeat(33))).toMatch(/deeper than 32/);
    expect(checkJsonShape('{"a":'.repeat(5000) + '1' + '}'.repeat(5000))).toMatch(/deeper/);
    // Unclosed: still refused for its depth, before any parser sees it.
    expect(checkJsonShape('['.repeat(100_000))).toMatch(/deeper/);
  });

  it('refuses an object with too many keys, but not many keys spread over objects', () => {
    const object = (count: number) =>
      `{${Array.from({ length: count }, (_, i) => `"k${i}":${i}`).join(',')}}`;
    expect(checkJsonShape(object(JSON_LIMITS.maxKeysPerObject))).toBeUndefined();
    expect(checkJsonShape(object(JSON_LIMITS.maxKeysPerObject + 1))).toMatch(/more than 1000 keys/);
    expect(checkJsonShape(`[${Array.from({ length: 20 }, () => object(900)).join(',')}]`)).toBe(
      undefined,
    );
  });

  it('refuses more entries than the body limit allows', () => {
    expect(checkJsonShape(`[${'1,'.repeat(JSON_LIMITS.maxEntries + 1)}1]`)).toMatch(/more than/);
  });

  it('is not fooled by escaped quotes and colons inside strings', () => {
    const keys = `{"a":"${'\\":'.repeat(5000)}"}`;
    expect(checkJsonShape(keys)).toBeUndefined();
  });
});
