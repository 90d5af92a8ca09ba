import { Injectable } from '@nestjs/common';
import { AuditLog } from '../audit/audit-log';
import { Principal } from '../auth/principal';
import { isUuid, newId } from '../platform/crypto/ids';
import type { AccountId } from '../platform/database/account-id';
import type { Db } from '../platform/database/db';
import { NotFoundError } from '../platform/errors/api-errors';
import { AccountsRepository } from './accounts.repository';

export class AccountCreationError extends Error {}

@Injectable()
export class AccountsService {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly audit: AuditLog,
  ) {}

  /** A new account (operator CLI). */
  create(name: string): Promise<{ id: AccountId; name: string }> {
    const trimmed = name.trim();
    if (!trimmed || trimmed.length > 200) {
      throw new AccountCreationError('An account needs a name of 1 to 200 characters.');
    }
    return this.accounts.create(newId(), trimmed);
  }

  /**
   * The account of a sign-up, inside the sign-up's transaction, so a failed owner insert leaves
   * no ownerless account behind. The sign-up form has checked the name.
   */
  /** Whether the installation has any account yet (first-person-only sign-up). */
  anyExists(tx?: Db): Promise<boolean> {
    return this.accounts.anyExists(tx);
  }

  async openForSignUp(
    name: string,
    tx: Db,
    onlyIfFirst: boolean,
  ): Promise<{ id: AccountId; name: string } | undefined> {
    if (onlyIfFirst && (await this.accounts.anyExists(tx))) return undefined;
    return this.accounts.create(newId(), name.trim(), tx);
  }

  /**
   * An account id given as text (the operator CLI, say), once it is known to exist: where a
   * plain string becomes an AccountId.
   */
  async find(candidate: string): Promise<AccountId | undefined> {
    return isUuid(candidate) ? this.accounts.find(candidate) : undefined;
  }

  /**
   * Every account. Only for what is installation-wide by nature, such as a provider's bounce
   * notification that does not say which account's message it is about.
   */
  allIds(): Promise<AccountId[]> {
    return this.accounts.allIds();
  }

  name(accountId: AccountId): Promise<string> {
    return this.accounts.name(accountId);
  }

  /** The account's settings; the account exists whenever a caller or a message names it. */
  async settings(accountId: AccountId): Promise<AccountSettings> {
    const row = await this.accounts.settings(accountId);
    if (!row) throw new NotFoundError('account');
    return { name: row.name, postal_address: row.postalAddress };
  }

  /**
   * The postal address printed in the footer of campaign mail (anti-spam laws ask for one).
   * Blank clears it. Audited, as a change to what every recipient sees.
   */
  async updatePostalAddress(caller: Principal, postalAddress: string): Promise<AccountSettings> {
    const trimmed = postalAddress.trim();
    await this.accounts.updatePostalAddress(caller.accountId, trimmed === '' ? null : trimmed);
    await this.audit.recordBy(caller, { action: 'account.postal_address_updated', metadata: {} });
    return this.settings(caller.accountId);
  }
}

export interface AccountSettings {
  name: string;
  postal_address: string | null;
}
