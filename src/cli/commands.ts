import { SCOPES } from '../auth/scopes';

/**
 * The operator CLI's commands: what they are called, take and print. What they do is in
 * runners.ts, loaded only when a command runs, so `--help` and a mistyped command answer at
 * once without loading Nest or Prisma.
 */
export interface Command {
  /** The words that name it: `keys create`. */
  name: string;
  summary: string;
  options: Record<string, CommandOption>;
  /** Further paragraphs of the command's help. */
  notes?: string[];
  run(options: ParsedOptions): Promise<object>;
}

export interface CommandOption {
  /** The value's placeholder in help (`ACCOUNT_ID`); absent for a flag that takes none. */
  value?: string;
  description: string;
  required?: boolean;
  /** An option that is refused with this explanation (and left out of help). */
  refused?: string;
}

export interface ParsedOptions {
  /** A string option's value; required ones are checked before `run`. */
  text(name: string): string;
  flag(name: string): boolean;
}

/** A mistake in how the CLI was called: the message comes with the command's usage. */
export class UsageError extends Error {}

const runners = () => import('./runners');

const accountsCreate: Command = {
  name: 'accounts create',
  summary: 'Create an account.',
  options: { name: { value: 'NAME', description: '1 to 200 characters', required: true } },
  notes: ['Prints {"id","name"}.'],
  run: async (options) => (await runners()).createAccount(options.text('name')),
};

const keysCreate: Command = {
  name: 'keys create',
  summary: "Create an API key; its secret is shown once, in this command's output.",
  options: {
    account: { value: 'ACCOUNT_ID', description: 'the account the key acts for', required: true },
    name: { value: 'NAME', description: '1 to 100 characters', required: true },
    scopes: {
      value: 'SCOPE,…',
      description: 'what the key may do, comma-separated',
      required: true,
    },
  },
  notes: [
    `Scopes: ${SCOPES.join(', ')}.`,
    'Prints {"id","name","key","scopes"}. Herald stores only a keyed hash of the key: copy it now.',
  ],
  run: async (options) =>
    (await runners()).createKey(
      options.text('account'),
      options.text('name'),
      options
        .text('scopes')
        .split(',')
        .map((scope) => scope.trim())
        .filter(Boolean),
    ),
};

function keyStatusCommand(verb: 'revoke' | 'suspend', status: 'revoked' | 'suspended'): Command {
  return {
    name: `keys ${verb}`,
    summary:
      verb === 'revoke'
        ? 'Revoke an API key: every request with it is refused from now on.'
        : 'Suspend an API key: refused like a revoked key, but listed as suspended.',
    options: { id: { value: 'KEY_ID', description: 'the key’s id', required: true } },
    notes: [`Prints {"id","status":"${status}"}.`],
    run: async (options) => (await runners()).setKeyStatus(options.text('id'), status),
  };
}

const usersCreate: Command = {
  name: 'users create',
  summary: 'Create a dashboard user for an existing account.',
  options: {
    account: { value: 'ACCOUNT_ID', description: 'the account they sign in to', required: true },
    email: { value: 'EMAIL', description: 'they sign in with it', required: true },
    'password-stdin': { description: 'read the password from stdin instead of asking for it' },
    password: {
      value: 'PASSWORD',
      description: '',
      refused:
        '--password is not accepted: a password on the command line is visible to other users ' +
        'of the machine and kept in shell history. Type it when asked, or pipe it in with ' +
        '--password-stdin.',
    },
  },
  notes: [
    'Asks for the password twice at the terminal, without echo. For automation, pipe it in:',
    '  printf \'%s\\n\' "$PASSWORD" | npm run -s cli -- users create --account … --email … --password-stdin',
    'Prints {"id","account_id","email","name","role"}.',
  ],
  run: async (options) =>
    (await runners()).createUser(
      options.text('account'),
      options.text('email'),
      options.flag('password-stdin') ? 'stdin' : 'prompt',
    ),
};

export const COMMANDS: readonly Command[] = [
  accountsCreate,
  keysCreate,
  keyStatusCommand('revoke', 'revoked'),
  keyStatusCommand('suspend', 'suspended'),
  usersCreate,
];
