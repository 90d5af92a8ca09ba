import { KeyedHasher } from '../crypto/keyed-hasher';
import { isUuid } from '../crypto/ids';
import { InvalidRequestError } from '../errors/api-errors';

/**
 * Opaque list cursors: the last id of a page, signed with the master secret together with
 * the account and the list it came from. A cursor from another account or another list,
 * or one that was tampered with, fails the signature check and is answered 400.
 */
export class CursorCodec {
  constructor(private readonly hasher: KeyedHasher) {}

  encode(accountId: string, list: string, lastId: string): string {
    const payload = Buffer.from(lastId, 'utf8').toString('base64url');
    return `${payload}.${this.sign(accountId, list, payload)}`;
  }

  decode(accountId: string, list: string, cursor: string): string {
    const [payload, signature, ...rest] = cursor.split('.');
    const valid =
      rest.length === 0 &&
      payload !== undefined &&
      signature !== undefined &&
      this.hasher.matches(this.purpose(accountId, list), payload, signature);
    const lastId = valid ? Buffer.from(payload, 'base64url').toString('utf8') : '';
    if (!isUuid(lastId)) {
      throw new InvalidRequestError('The cursor is invalid or was issued for another list.');
    }
    return lastId;
  }

  private sign(accountId: string, list: string, payload: string): string {
    return this.hasher.hash(this.purpose(accountId, list), payload);
  }

  private purpose(accountId: string, list: string): string {
    return `cursor:${list}:${accountId}`;
  }
}
