import type { Readable, Writable } from 'node:stream';

/** A terminal's input stream: process.stdin when it is a TTY. */
export interface TerminalInput extends Readable {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
}

export class PasswordInputError extends Error {}

const ENTER = new Set(['\r', '\n']);
const ABORT = new Set(['\u0003', '\u0004']); // Ctrl-C, Ctrl-D
const BACKSPACE = new Set(['\u007f', '\b']);
const ESCAPE = '\u001b';

/**
 * Reads a line typed at the terminal without echoing it, so the password never shows on
 * screen. In raw mode each key arrives as typed: Enter ends, Backspace deletes, Ctrl-C or
 * Ctrl-D abort (a half-typed password is never used), and escape sequences (arrow keys)
 * are ignored. The prompt goes to `output` (stderr), never to stdout, which holds the JSON.
 */
export function promptHidden(
  prompt: string,
  input: TerminalInput,
  output: Writable,
): Promise<string> {
  const setRawMode = input.setRawMode?.bind(input);
  if (!input.isTTY || !setRawMode) {
    throw new PasswordInputError(
      'no terminal to ask for the password on: pipe it in with --password-stdin',
    );
  }
  // Echo off before the prompt shows: keys typed as soon as it appears must not echo.
  setRawMode(true);
  output.write(prompt);
  input.setEncoding('utf8');
  input.resume();
  return new Promise((resolve, reject) => {
    let typed: string[] = [];
    const finish = (error?: Error) => {
      input.off('data', onKeys);
      setRawMode(false);
      input.pause();
      output.write('\n');
      if (error) reject(error);
      else resolve(typed.join(''));
    };
    const onKeys = (chunk: string) => {
      if (chunk.startsWith(ESCAPE)) return;
      for (const char of chunk) {
        if (ENTER.has(char)) return finish();
        if (ABORT.has(char)) return finish(new PasswordInputError('cancelled'));
        if (BACKSPACE.has(char)) typed = typed.slice(0, -1);
        else if (char >= ' ') typed.push(char);
      }
    };
    input.on('data', onKeys);
  });
}

/** Asks twice at the terminal, so a typo does not become the password. */
export async function askNewPassword(input: TerminalInput, output: Writable): Promise<string> {
  const password = await promptHidden('Password: ', input, output);
  const again = await promptHidden('Password again: ', input, output);
  if (password !== again) throw new PasswordInputError('the two passwords differ');
  return password;
}

/**
 * The password piped in for automation (`--password-stdin`): all of stdin but its final line
 * break, as `printf '%s\n' "$PASSWORD" | …` or a secrets file gives it. More than one line is
 * refused rather than guessed at.
 */
export async function readPasswordFrom(input: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) {
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  }
  const password = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  if (password === '') throw new PasswordInputError('--password-stdin read no password from stdin');
  if (/[\r\n]/.test(password)) {
    throw new PasswordInputError('--password-stdin expects the password on a single line');
  }
  return password;
}
