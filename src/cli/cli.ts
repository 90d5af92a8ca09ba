import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { parseArgs } from 'node:util';
import { AccountsService } from '../accounts/accounts.service';
import { ApiKeysService } from '../auth/api-keys.service';
import { AppModule } from '../app.module';
import { presentUser, UsersService } from '../dashboard/people/users.service';
import { loadConfig } from '../platform/config/config';
import { ApiError } from '../platform/errors/api-errors';

/**
 * The operator CLI (CONTRACT §3). Each command prints exactly one JSON object on stdout and
 * exits 0; on error, a message on stderr and a non-zero exit.
 */
const USAGE = `usage:
  cli accounts create --name NAME
  cli keys create --account ACCOUNT_ID --name NAME --scopes scope1,scope2
  cli keys revoke --id KEY_ID
  cli keys suspend --id KEY_ID
  cli users create --account ACCOUNT_ID --email EMAIL --password PASSWORD`;

class UsageError extends Error {}

async function run(argv: string[]): Promise<object> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      account: { type: 'string' },
      scopes: { type: 'string' },
      id: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
    },
  });
  const command = positionals.join(' ');
  const required = (option: keyof typeof values): string => {
    const value = values[option];
    if (typeof value !== 'string' || value === '') throw new UsageError(`--${option} is required`);
    return value;
  };

  const app = await NestFactory.createApplicationContext(AppModule.cli(loadConfig()), {
    logger: false,
  });
  try {
    switch (command) {
      case 'accounts create':
        return await app.get(AccountsService).create(required('name'));
      case 'keys create': {
        const scopes = required('scopes')
          .split(',')
          .map((scope) => scope.trim());
        return await app
          .get(ApiKeysService)
          .create(required('account'), required('name'), scopes.filter(Boolean));
      }
      case 'keys revoke':
      case 'keys suspend': {
        const id = required('id');
        const status = command === 'keys revoke' ? 'revoked' : 'suspended';
        if (!(await app.get(ApiKeysService).setStatus(id, status))) {
          throw new Error(`No key with id ${id}.`);
        }
        return { id, status };
      }
      case 'users create': {
        // A dashboard user for an existing account; they sign in with this email and password.
        const user = await app
          .get(UsersService)
          .createForAccount(required('account'), required('email'), required('password'))
          .catch((error: unknown) => {
            if (!(error instanceof ApiError) || error.details.length === 0) throw error;
            throw new Error(error.details.map((d) => `${d.field}: ${d.message}`).join('; '));
          });
        return presentUser(user);
      }
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } finally {
    await app.close();
  }
}

run(process.argv.slice(2)).then(
  (result) => {
    process.stdout.write(JSON.stringify(result) + '\n');
  },
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`error: ${message}\n${error instanceof UsageError ? USAGE + '\n' : ''}`);
    process.exitCode = 1;
  },
);
