import { Injectable } from '@nestjs/common';
import { AuditLog } from '../audit/audit-log';
import { Principal } from '../auth/principal';
import { newId } from '../platform/crypto/ids';
import { NotFoundError } from '../platform/errors/api-errors';
import { AccountsRepository } from './accounts.repository';

export class AccountCreationError extends Error {}

@Injectable()
export class AccountsService {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly audit: AuditLog,
  ) {}

  create(name: string): Promise<{ id: string; name: string }> {
    const trimmed = name.trim();
    if (!trimmed || trimmed.length > 200) {
      throw new AccountCreationError('An account needs a name of 1 to 200 characters.');
    }
    return this.accounts.create(newId(), trimmed);
  }

  /** The account's settings; the account exists whenever a caller or a message names it. */
  async settings(accountId: string): Promise<AccountSettings> {
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
    await this.audit.record(caller.accountId, {
      action: 'account.postal_address_updated',
      apiKeyId: caller.apiKeyId,
      metadata: caller.userId ? { user_id: caller.userId } : {},
    });
    return this.settings(caller.accountId);
  }
}

export interface AccountSettings {
  name: string;
  postal_address: string | null;
}
