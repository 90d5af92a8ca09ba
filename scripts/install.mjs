// The install step of `npm run setup`: `npm ci` only when what it would install has changed.
//
// `npm ci` deletes node_modules and reinstalls every package, so re-running setup after a pull
// that changed no dependency should not pay for it. After a successful `npm ci` this writes a
// hash of its inputs into node_modules; while that hash still matches, the install is skipped
// and only the postinstall step (the Prisma client, whose schema may have changed) runs again.
// `npm ci` empties node_modules first, so a failed or interrupted install leaves no stamp and
// the next run installs again. Node built-ins only: this runs before any package is installed.
//
// package-lock.json carries no tarball addresses (`resolved`): npm is set to leave them out
// (omit-lockfile-registry-resolved), so the lockfile names no registry. Without them `npm ci`
// first fetches each package's metadata document from the registry to find its tarball, one
// request per package and about 170 MB of JSON to parse for this tree, and cannot take a
// tarball from its cache by checksum. A registry serves every tarball at
// `<registry>/<name>/-/<name without scope>-<version>.tgz`, so for the install only, the
// lockfile gets those addresses from the registry configured here, and gets its own bytes back
// afterwards. What is installed does not change: npm checks each tarball against the
// lockfile's `integrity` either way. Should the filled-in install fail (a registry with other
// addresses), `npm ci` runs again on the lockfile as it is.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';

const STAMP = 'node_modules/.herald-lock-hash';
const LOCKFILE = 'package-lock.json';
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];
/** How npm exits when one of those stops it (128 + the signal's number). */
const STOPPED_STATUSES = [129, 130, 143];
// No audit or funding requests: neither changes what is installed, and each is a round trip.
const CI = ['ci', '--no-audit', '--no-fund'];

/** Everything `npm ci` reads to decide what to install and which install scripts to run. */
function inputsHash() {
  const hash = createHash('sha256');
  for (const file of [LOCKFILE, 'package.json', '.npmrc']) {
    hash.update(`${file}\0`);
    if (existsSync(file)) hash.update(readFileSync(file));
  }
  // Platform-specific packages (@swc/core, Prisma's engines) differ by platform and Node.
  hash.update(`${process.platform} ${process.arch} ${process.versions.modules}`);
  return hash.digest('hex');
}

/** npm itself: the one running this script when there is one, so no PATH lookup is needed. */
function runNpm(args, stdio = 'inherit') {
  const cli = process.env.npm_execpath;
  return cli
    ? spawnSync(process.execPath, [cli, ...args], { stdio, encoding: 'utf8' })
    : spawnSync('npm', args, { stdio, encoding: 'utf8', shell: process.platform === 'win32' });
}

function npm(...args) {
  const result = runNpm(args);
  if (result.status !== 0) process.exit(result.status ?? 1);
}

/** The registry of each scope that has one of its own (`@scope:registry`), and the default. */
function registries() {
  const result = runNpm(['config', 'ls', '--json'], ['ignore', 'pipe', 'inherit']);
  if (result.status !== 0) return undefined;
  const config = JSON.parse(result.stdout);
  const scoped = Object.fromEntries(
    Object.entries(config)
      .filter(([key]) => key.endsWith(':registry'))
      .map(([key, url]) => [key.slice(0, -':registry'.length), url]),
  );
  return { default: config.registry, scoped };
}

/** The lockfile with each registry package's tarball address, or undefined when none lacks one. */
function withTarballAddresses(lockText) {
  const where = registries();
  if (!where?.default) return undefined;
  const lock = JSON.parse(lockText);
  let filled = 0;
  for (const [path, entry] of Object.entries(lock.packages ?? {})) {
    if (!path || entry.resolved || entry.link || entry.inBundle || !entry.version) continue;
    // An aliased package (`"x": "npm:y@1"`) names the real package in `name`.
    const name =
      entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    const scope = name.startsWith('@') ? name.split('/')[0] : undefined;
    const registry = (where.scoped[scope] ?? where.default).replace(/\/?$/, '/');
    entry.resolved = `${registry}${name}/-/${name.split('/').pop()}-${entry.version}.tgz`;
    filled += 1;
  }
  return filled ? `${JSON.stringify(lock, null, 2)}\n` : undefined;
}

/**
 * `npm ci` on `filled` in place of the lockfile, whose own bytes are back afterwards; true when
 * it succeeded. Ctrl-C reaches npm too: while it stops, this process stays (a listener keeps
 * Node's default of dying at once away), puts the lockfile back, then ends as npm did.
 */
function installFrom(filled, original) {
  const stay = () => {};
  for (const signal of STOP_SIGNALS) process.on(signal, stay);
  let result;
  try {
    writeFileSync(LOCKFILE, filled);
    result = runNpm(CI);
  } finally {
    writeFileSync(LOCKFILE, original);
    for (const signal of STOP_SIGNALS) process.off(signal, stay);
  }
  if (result.signal) process.exit(128 + constants.signals[result.signal]);
  if (STOPPED_STATUSES.includes(result.status)) process.exit(result.status);
  return result.status === 0;
}

const expected = inputsHash();
const stamped = existsSync(STAMP) ? readFileSync(STAMP, 'utf8').trim() : undefined;
if (stamped === expected) {
  console.log('Dependencies match package-lock.json: npm ci skipped.');
  npm('run', '-s', 'postinstall');
} else {
  const original = readFileSync(LOCKFILE);
  const filled = withTarballAddresses(original.toString('utf8'));
  if (!filled) npm(...CI);
  else if (!installFrom(filled, original)) {
    console.log('Installing again from package-lock.json as it is, without tarball addresses.');
    npm(...CI);
  }
  writeFileSync(STAMP, `${expected}\n`);
}
