import { isUuid } from '../crypto/ids';

/**
 * The account a query is scoped to. Every repository method takes one first, and a plain
 * string does not type-check as one: an AccountId is produced only where an account has been
 * established (an API key or a session authenticated, a signed link verified, an account
 * created or found, a job payload Herald wrote parsed back), so a query that forgot its
 * account does not compile.
 */
export type AccountId = string & { readonly __brand: 'AccountId' };

export class MalformedAccountIdError extends Error {
  constructor() {
    super('An account id must be a UUID.');
  }
}

/**
 * At a boundary that carries an account id as data (a queued job, operator input): checks its
 * shape. Whether the account exists is the caller's question.
 */
export function parseAccountId(value: unknown): AccountId {
  if (typeof value !== 'string' || !isUuid(value)) throw new MalformedAccountIdError();
  return value as AccountId;
}

/**
 * An account_id read back from the database (a key, a session, a row found across accounts):
 * the database only holds ids of accounts that exist, so it is trusted as it is.
 */
export function accountIdOfRow(value: string): AccountId {
  return value as AccountId;
}
