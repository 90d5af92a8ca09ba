// `npm run build`: the server into dist/ and the dashboard into dist/web, side by side.
//
// TypeScript compiles src/ without type-checking it (`--noCheck`): the JavaScript it writes is
// the same, byte for byte, and the checking is `npm run typecheck`'s job (the first step of
// `npm test`), which covers src/ and more. The CLI bundle (scripts/bundle-cli.mjs) then takes
// tsc's output. Vite's build of the dashboard needs none of it and runs meanwhile. Each step's
// output is printed whole once it ends, so the two never interleave; the build fails when
// either fails.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** The command-line script a package names in its `bin`. */
function bin(name, command) {
  const manifest = require.resolve(`${name}/package.json`);
  const { bin } = require(manifest);
  return join(dirname(manifest), typeof bin === 'string' ? bin : bin[command]);
}

/** Runs `node file ...args`; resolves to its exit code once its output has been printed. */
function node(file, args) {
  return new Promise((done) => {
    const child = spawn(process.execPath, [file, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('error', (error) => output.push(Buffer.from(`${error.message}\n`)));
    child.on('close', (code) => {
      process.stderr.write(Buffer.concat(output));
      done(code ?? 1);
    });
  });
}

async function server() {
  const compiled = await node(bin('typescript', 'tsc'), ['-p', 'tsconfig.build.json', '--noCheck']);
  return compiled === 0 ? node('scripts/bundle-cli.mjs', []) : compiled;
}

const dashboard = () => node(bin('vite', 'vite'), ['build', 'web', '--logLevel', 'warn']);

const codes = await Promise.all([server(), dashboard()]);
process.exitCode = codes.find((code) => code !== 0) ?? 0;
