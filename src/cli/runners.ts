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

export async function createKey(
  accountId: string,
  name: string,
  scopes: string[],
): Promise<object> {
  const { AuthModule } = await import('../auth/auth.module');
  const { ApiKeysService } = await import('../auth/api-keys.service');
  return runInContext([AuthModule], (app) =>
    app.get(ApiKeysService).create(accountId, name, scopes),
  );
}

export async function setKeyStatus(id: string, status: 'revoked' | 'suspended'): Promise<object> {
  const { AuthModule } = await import('../auth/auth.module');
  const { ApiKeysService } = await import('../auth/api-keys.service');
  const found = await runInContext([AuthModule], (app) =>
    app.get(ApiKeysService).setStatus(id, status),
  );
  if (!found) throw new Error(`No key with id ${id}.`);
  return { id, status };
}

/** The password is read before anything boots: nothing waits on a person typing. */
export async function createUser(
  accountId: string,
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
  const user = await runInContext([PeopleModule], (app) =>
    app.get(UsersService).createForAccount(accountId, email, password),
  );
  return presentUser(user);
}
