import { Command, CommandOption } from './commands';

const PROGRAM = 'npm run -s cli --';

function listed(command: Command): [string, CommandOption][] {
  return Object.entries(command.options).filter(([, option]) => !option.refused);
}

function spelled(name: string, option: CommandOption): string {
  return option.value ? `--${name} ${option.value}` : `--${name}`;
}

/** Two columns, the first padded to its widest entry. */
function table(rows: [string, string][]): string[] {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`.trimEnd());
}

export function usageLine(command: Command): string {
  const options = listed(command).map(([name, option]) =>
    option.required ? spelled(name, option) : `[${spelled(name, option)}]`,
  );
  return `usage: ${PROGRAM} ${command.name} ${options.join(' ')}`;
}

export function overview(commands: readonly Command[]): string {
  return [
    `Herald's operator CLI: ${PROGRAM} COMMAND [OPTIONS]`,
    '',
    'Each command prints one JSON object on stdout and exits 0; when it fails, it prints why',
    'on stderr and exits with a non-zero status.',
    '',
    'commands:',
    ...table(commands.map((command) => [command.name, command.summary])),
    '',
    `${PROGRAM} COMMAND --help describes a command and its options.`,
  ].join('\n');
}

export function commandHelp(command: Command): string {
  const options = listed(command).map(([name, option]): [string, string] => [
    spelled(name, option),
    option.required ? `${option.description} (required)` : option.description,
  ]);
  return [
    usageLine(command),
    '',
    command.summary,
    '',
    'options:',
    ...table([...options, ['--help', 'this help']]),
    ...(command.notes ? ['', ...command.notes] : []),
  ].join('\n');
}
