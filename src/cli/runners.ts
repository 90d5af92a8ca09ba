import type { INestApplicationContext } from '@nestjs/common';
import type { AccountId } from '../platform/database/account-id';
import { runInContext } from './cli-context';

/**
 * What each command does. This file, and Nest and Prisma with it, is loaded only when a
 * command runs; each command then imports only its own domain module, so `keys revoke`
 * loads no password hashing and `accounts create` no key issuing.
 */

export async function createAccount(name: string): Promise<object> {
  const { AccountsModule } = await import('../accounts/accounts.module');
  const { AccountsService } = await import('../accounts/accounts.service');
  return runInContext([AccountsModule], (app) => app.get(AccountsService).create(name));
}

/**
 * The account an operator named, as the AccountId every service takes: the CLI is the one
 * caller that starts from text, so it checks the account exists before anything else runs.
 */
async function accountNamed(app: INestApplicationContext, account: string): Promise<AccountId> {
  const { AccountsService } = await import('../accounts/accounts.service');
  const accountId = await app.get(AccountsService).find(account);
  if (!accountId) throw new Error(`No account with id ${account}.`);
  return accountId;
}

export async function createKey(account: string, name: string, scopes: string[]): Promise<object> {
  const { AuthModule } = await import('../auth/auth.module');
  const { ApiKeysService } = await import('../auth/api-keys.service');
  return runInContext([AuthModule], async (app) =>
    app.get(ApiKeysService).create(await accountNamed(app, account), name, scopes),
  );
}

export async function setKeyStatus(id: string, status: 'revoked' | 'suspended'): Promise<object> {
  const { AuthModule } = await import('../auth/auth.module');
  const { ApiKeysService } = await import('../auth/api-keys.service');
  const found = await runInContext([AuthModule], async (app) => {
    const keys = app.get(ApiKeysService);
    const accountId = await keys.accountOfKeyAcrossAccounts(id);
    return accountId !== undefined && keys.setStatus(accountId, id, status);
  });
  if (!found) throw new Error(`No key with id ${id}.`);
  return { id, status };
}

/** The password is read before anything boots: nothing waits on a person typing. */
export async function createUser(
  account: string,
  email: string,
  passwordFrom: 'stdin' | 'prompt',
): Promise<object> {
  const input = await import('./password-input');
  const password =
    passwordFrom === 'stdin'
      ? await input.readPasswordFrom(process.stdin)
      : await input.askNewPassword(process.stdin, process.stderr);
  const { PeopleModule } = await import('../dashboard/people/people.module');
  const { presentUser, UsersService } = await import('../dashboard/people/users.service');
  const user = await runInContext([PeopleModule], async (app) =>
    app.get(UsersService).createForAccount(await accountNamed(app, account), email, password),
  );
  return presentUser(user);
}
