import { PassThrough, Readable } from 'node:stream';
import {
  askNewPassword,
  PasswordInputError,
  promptHidden,
  readPasswordFrom,
  TerminalInput,
} from './password-input';

/** A terminal stand-in: keys are written in, raw-mode switches are recorded. */
function terminal(): { input: TerminalInput & PassThrough; rawModes: boolean[] } {
  const rawModes: boolean[] = [];
  const input = Object.assign(new PassThrough(), {
    isTTY: true,
    setRawMode: (mode: boolean) => rawModes.push(mode),
  });
  return { input, rawModes };
}

function screen(): {
  output: PassThrough;
  shown: () => string;
  /** Resolves once `text` has been shown. */
  showing: (text: string) => Promise<void>;
} {
  const output = new PassThrough();
  let text = '';
  output.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const showing = (wanted: string) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (!text.includes(wanted)) return;
        output.off('data', check);
        resolve();
      };
      output.on('data', check);
      check();
    });
  return { output, shown: () => text, showing };
}

describe('promptHidden', () => {
  it('returns what was typed without echoing it, and restores the terminal', async () => {
    const { input, rawModes } = terminal();
    const { output, shown } = screen();
    const answer = promptHidden('Password: ', input, output);
    input.write('s3cret pass\r');
    await expect(answer).resolves.toBe('s3cret pass');
    expect(shown()).toBe('Password: \n');
    expect(rawModes).toEqual([true, false]);
  });

  it('applies Backspace and ignores escape sequences', async () => {
    const { input } = terminal();
    const answer = promptHidden('Password: ', input, screen().output);
    input.write('ab');
    input.write('\u001b[D'); // left arrow
    input.write('x\u007fc\r');
    await expect(answer).resolves.toBe('abc');
  });

  it('aborts on Ctrl-C instead of using a half-typed password', async () => {
    const { input, rawModes } = terminal();
    const answer = promptHidden('Password: ', input, screen().output);
    input.write('half\u0003');
    await expect(answer).rejects.toThrow('cancelled');
    expect(rawModes).toEqual([true, false]);
  });

  it('refuses to prompt without a terminal', () => {
    const input = Object.assign(new PassThrough(), { isTTY: false });
    expect(() => promptHidden('Password: ', input, screen().output)).toThrow(/--password-stdin/);
  });
});

describe('askNewPassword', () => {
  it('returns the password when both answers match', async () => {
    const { input } = terminal();
    const { output, showing } = screen();
    const answer = askNewPassword(input, output);
    input.write('same one\r');
    await showing('Password again: ');
    input.write('same one\r');
    await expect(answer).resolves.toBe('same one');
  });

  it('asks twice and refuses two different answers', async () => {
    const { input } = terminal();
    const { output, showing } = screen();
    const answer = askNewPassword(input, output);
    input.write('first one\r');
    await showing('Password again: ');
    input.write('second one\r');
    await expect(answer).rejects.toThrow(PasswordInputError);
  });
});

describe('readPasswordFrom', () => {
  it('takes stdin without its final line break', async () => {
    await expect(readPasswordFrom(Readable.from(['pass word\n']))).resolves.toBe('pass word');
    await expect(readPasswordFrom(Readable.from(['pass', 'word\r\n']))).resolves.toBe('password');
    await expect(readPasswordFrom(Readable.from(['no newline']))).resolves.toBe('no newline');
  });

  it('refuses an empty stdin and more than one line', async () => {
    await expect(readPasswordFrom(Readable.from(['\n']))).rejects.toThrow(/no password/);
    await expect(readPasswordFrom(Readable.from(['one\ntwo\n']))).rejects.toThrow(/single line/);
  });
});
