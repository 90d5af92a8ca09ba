import { KeyedHasher } from '../crypto/keyed-hasher';
import { newId } from '../crypto/ids';
import { InvalidRequestError } from '../errors/api-errors';
import { CursorCodec } from './cursor-codec';
import { DEFAULT_LIMIT, parseLimit } from './page-request';

describe('CursorCodec', () => {
  const codec = new CursorCodec(new KeyedHasher('secret-one'));
  const id = newId();

  it('round-trips the last id for the same account and list', () => {
    expect(codec.decode('acct-a', 'subscribers', codec.encode('acct-a', 'subscribers', id))).toBe(
      id,
    );
  });

  it.each([
    [
      'another account',
      () => codec.decode('acct-b', 'subscribers', codec.encode('acct-a', 'subscribers', id)),
    ],
    [
      'another list',
      () => codec.decode('acct-a', 'templates', codec.encode('acct-a', 'subscribers', id)),
    ],
    [
      'another secret',
      () =>
        new CursorCodec(new KeyedHasher('secret-two')).decode(
          'acct-a',
          'subscribers',
          codec.encode('acct-a', 'subscribers', id),
        ),
    ],
    ['garbage', () => codec.decode('acct-a', 'subscribers', 'not-a-cursor')],
    [
      'a forged payload',
      () => {
        const [, signature] = codec.encode('acct-a', 'subscribers', id).split('.');
        const forged = Buffer.from(newId()).toString('base64url');
        return codec.decode('acct-a', 'subscribers', `${forged}.${signature}`);
      },
    ],
  ])('rejects a cursor from %s with 400', (_, decode) => {
    expect(decode).toThrow(InvalidRequestError);
  });
});

describe('parseLimit', () => {
  it.each([
    [undefined, DEFAULT_LIMIT],
    ['10', 10],
    ['0', 1],
    ['-7', 1],
    ['101', 100],
    ['100000', 100],
    ['2.9', 2],
  ])('turns %p into %p', (raw, expected) => {
    expect(parseLimit(raw)).toBe(expected);
  });

  it.each(['abc', '', ' ', '10abc', 'NaN', 'Infinity'])('rejects %p with 400', (raw) => {
    expect(() => parseLimit(raw)).toThrow(InvalidRequestError);
  });

  it('rejects a repeated parameter', () => {
    expect(() => parseLimit(['1', '2'])).toThrow(InvalidRequestError);
  });
});
