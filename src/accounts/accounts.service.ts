import { Injectable } from '@nestjs/common';
import { newId } from '../platform/crypto/ids';
import { AccountsRepository } from './accounts.repository';

export class AccountCreationError extends Error {}

@Injectable()
export class AccountsService {
  constructor(private readonly accounts: AccountsRepository) {}

  create(name: string): Promise<{ id: string; name: string }> {
    const trimmed = name.trim();
    if (!trimmed || trimmed.length > 200) {
      throw new AccountCreationError('An account needs a name of 1 to 200 characters.');
    }
    return this.accounts.create(newId(), trimmed);
  }
}
