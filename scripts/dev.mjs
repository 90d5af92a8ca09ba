// `npm run dev`: the API with its workers' child process, recompiled and restarted on every
// change to src/.
//
// TypeScript's own watch mode compiles src/ into dist/ and reports type errors; once its first
// compile is done, Node's watch mode runs dist/main.js and restarts it whenever anything under
// dist/ changes. It watches the whole directory, not only what the API process loaded: the
// workers run in a child process whose modules the parent never loads. Both end together.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

const tscCli = createRequire(import.meta.url).resolve('typescript/bin/tsc');
/** What TypeScript prints at the end of every compile in watch mode ("Found 0 errors. ..."). */
const COMPILE_DONE = /Found \d+ errors?\. Watching for file changes\./;

const tsc = spawn(
  process.execPath,
  [tscCli, '-p', 'tsconfig.build.json', '--watch', '--preserveWatchOutput', '--pretty'],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
let api;
let printed = '';

tsc.stdout.setEncoding('utf8');
tsc.stdout.on('data', (text) => {
  process.stdout.write(text);
  // The last few lines only: a line may arrive in two pieces.
  printed = (printed + text).slice(-500);
  if (!api && COMPILE_DONE.test(printed)) {
    api = spawn(process.execPath, ['--watch-path=dist', 'dist/main.js'], { stdio: 'inherit' });
    api.on('exit', (code) => stop(code ?? 1));
  }
});
tsc.on('exit', (code) => stop(code ?? 1));

let stopping = false;
function stop(code) {
  if (stopping) return;
  stopping = true;
  for (const child of [tsc, api]) if (child && child.exitCode === null) child.kill('SIGTERM');
  process.exitCode = code;
}
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => stop(0));
