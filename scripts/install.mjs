// The install step of `npm run setup`: `npm ci` only when what it would install has changed.
//
// `npm ci` deletes node_modules and reinstalls every package (about a minute), so re-running
// setup after a pull that changed no dependency should not pay for it. After a successful
// `npm ci` this writes a hash of its inputs into node_modules; while that hash still matches,
// the install is skipped and only the postinstall step (the Prisma client, whose schema may
// have changed) runs again. `npm ci` empties node_modules first, so a failed or interrupted
// install leaves no stamp and the next run installs again. Node built-ins only: this runs
// before any package is installed.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const STAMP = 'node_modules/.herald-lock-hash';

/** Everything `npm ci` reads to decide what to install and which install scripts to run. */
function inputsHash() {
  const hash = createHash('sha256');
  for (const file of ['package-lock.json', 'package.json', '.npmrc']) {
    hash.update(`${file}\0`);
    if (existsSync(file)) hash.update(readFileSync(file));
  }
  // Platform-specific packages (@swc/core, Prisma's engines) differ by platform and Node.
  hash.update(`${process.platform} ${process.arch} ${process.versions.modules}`);
  return hash.digest('hex');
}

/** npm itself: the one running this script when there is one, so no PATH lookup is needed. */
function npm(...args) {
  const cli = process.env.npm_execpath;
  const result = cli
    ? spawnSync(process.execPath, [cli, ...args], { stdio: 'inherit' })
    : spawnSync('npm', args, { stdio: 'inherit', shell: process.platform === 'win32' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const expected = inputsHash();
const stamped = existsSync(STAMP) ? readFileSync(STAMP, 'utf8').trim() : undefined;
if (stamped === expected) {
  console.log('Dependencies match package-lock.json: npm ci skipped.');
  npm('run', '-s', 'postinstall');
} else {
  // No audit or funding requests: neither changes what is installed, and each is a round trip.
  npm('ci', '--no-audit', '--no-fund');
  writeFileSync(STAMP, `${expected}\n`);
}
