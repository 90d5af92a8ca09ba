// The last step of `npm run build`: what the operator CLI's commands run (dist/cli/runners.js
// and everything it imports) as one CommonJS file with Nest inside, in place of tsc's output.
//
// Unbundled, a CLI call spent most of its time loading modules rather than working: Nest 12
// ships ES modules only, and Node 20 loads them file by file, resolving and compiling each
// (hundreds of files, about half a second). Bundled, they are read and compiled at once, which
// halves a call. The code is the same: this bundles tsc's output (decorator metadata already
// emitted), and what a command imports when it runs is still evaluated only then. The command
// table and help (cli.js, commands.js, help.js) stay small and unbundled, so `--help` loads
// none of this.
import { isAbsolute } from 'node:path';
import { build } from 'rolldown';

/** Nest packages that Herald does not install: Nest loads them only when used. */
const NOT_INSTALLED = ['@nestjs/microservices', '@nestjs/websockets', '@nestjs/platform-express'];

/**
 * Bundled: our code, Nest and what Nest imports (an ES module's imports of an external
 * package would be hoisted and loaded at start-up, whatever the command). Left to `require`,
 * when a command first needs them: the other packages our code imports.
 */
function external(id, importer) {
  if (isAbsolute(id) || /^[./\0]/.test(id) || id.startsWith('node:')) return false;
  const name = id
    .split('/')
    .slice(0, id.startsWith('@') ? 2 : 1)
    .join('/');
  if (NOT_INSTALLED.includes(name)) return true;
  return !name.startsWith('@nestjs/') && !importer?.includes('/node_modules/');
}

await build({
  input: 'dist/cli/runners.js',
  platform: 'node',
  external,
  output: { file: 'dist/cli/runners.js', format: 'cjs', codeSplitting: false, sourcemap: true },
  logLevel: 'warn',
});
