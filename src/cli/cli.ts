import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { Command, COMMANDS, ParsedOptions, UsageError } from './commands';
import { commandHelp, overview, usageLine } from './help';

// A command runs a few queries and exits. V8 would compile Prisma's query compiler (a 3 MB
// WebAssembly module) twice, the second time optimised in the background; on a short run
// that second compile only burns CPU (a third of a call's), so keep the baseline code.
setFlagsFromString('--liftoff-only');

/**
 * The operator CLI: `npm run -s cli -- COMMAND [OPTIONS]`. A command prints exactly one JSON
 * object on stdout and exits 0; on error it prints `error: …` on stderr and exits 1, so
 * scripts can rely on stdout holding nothing but the result. `--help` (or `help`) prints
 * text on stdout instead and exits 0.
 */
type Outcome = { help: string } | { result: object };

const HELP_FLAGS = new Set(['--help', '-h']);

async function main(argv: string[]): Promise<Outcome> {
  const firstOption = argv.findIndex((arg) => arg.startsWith('-'));
  const words = firstOption === -1 ? [...argv] : argv.slice(0, firstOption);
  const rest = argv.slice(words.length);
  let wantsHelp = rest.some((arg) => HELP_FLAGS.has(arg));
  if (words[0] === 'help') {
    words.shift();
    wantsHelp = true;
  }
  const name = words.join(' ');
  if (name === '') {
    if (wantsHelp) return { help: overview(COMMANDS) };
    throw new UsageError('no command given');
  }
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (!command) {
    const group = COMMANDS.filter((candidate) => candidate.name.startsWith(`${name} `));
    if (wantsHelp && group.length > 0) return { help: overview(group) };
    throw new UsageError(`unknown command "${name}"`);
  }
  if (wantsHelp) return { help: commandHelp(command) };
  return { result: await command.run(parseOptions(command, rest)) };
}

/** A usage mistake within a known command: its usage line is shown, not the whole list. */
class CommandUsageError extends UsageError {
  constructor(
    readonly command: Command,
    message: string,
  ) {
    super(message);
  }
}

function parseOptions(command: Command, args: string[]): ParsedOptions {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: Object.fromEntries(
        Object.entries(command.options).map(([name, option]) => [
          name,
          { type: option.value ? ('string' as const) : ('boolean' as const) },
        ]),
      ),
    }));
  } catch (error) {
    throw new CommandUsageError(command, error instanceof Error ? error.message : String(error));
  }
  for (const [name, option] of Object.entries(command.options)) {
    const value = values[name];
    if (option.refused && value !== undefined) throw new CommandUsageError(command, option.refused);
    if (option.required && (typeof value !== 'string' || value.trim() === '')) {
      throw new CommandUsageError(command, `--${name} is required`);
    }
  }
  return {
    text: (name) => {
      const value = values[name];
      return typeof value === 'string' ? value : '';
    },
    flag: (name) => values[name] === true,
  };
}

/** The message, with the offending fields when a service rejected the input field by field. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const details = (error as { details?: unknown }).details;
  if (Array.isArray(details) && details.length > 0) {
    return (details as { field: string; message: string }[])
      .map((detail) => `${detail.field}: ${detail.message}`)
      .join('; ');
  }
  return error.message;
}

function usageOf(error: UsageError): string {
  return error instanceof CommandUsageError
    ? `${usageLine(error.command)}\n(add --help for more)`
    : overview(COMMANDS);
}

main(process.argv.slice(2)).then(
  (outcome) => {
    process.stdout.write(
      'help' in outcome ? `${outcome.help}\n` : `${JSON.stringify(outcome.result)}\n`,
    );
  },
  (error: unknown) => {
    const usage = error instanceof UsageError ? `\n\n${usageOf(error)}` : '';
    process.stderr.write(`error: ${describe(error)}${usage}\n`);
    process.exitCode = 1;
  },
);
