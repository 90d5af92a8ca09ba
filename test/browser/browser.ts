import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Browser, chromium, Page } from 'playwright-core';

/** Debian's chromium package (`apt-get install -y chromium`); Playwright's own download cannot run here. */
export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

const ROOT = resolve(__dirname, '../..');
export const SCREENSHOTS = resolve(ROOT, 'var/screenshots');

/**
 * Headless and quiet: no background connections (this machine's network is closed and
 * Chromium would keep retrying them), no first-run or sync machinery.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** The dashboard's static build (dist/web); `npm test` builds it first, a lone Jest run here. */
export function ensureWebBuild(): void {
  if (existsSync(resolve(ROOT, 'dist/web/index.html'))) return;
  // vite's package exports hide bin/, so find it beside its package.json.
  const vite = resolve(dirname(require.resolve('vite/package.json')), 'bin/vite.js');
  execFileSync(process.execPath, [vite, 'build', 'web'], {
    cwd: ROOT,
    stdio: 'ignore',
  });
}

/**
 * Screenshots for people to look at: var/screenshots/<name>.png. Whole pages, but only the
 * window when a modal dialog is open (it sits in the window, not on the page).
 */
export async function screenshot(page: Page, name: string, fullPage = true): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: resolve(SCREENSHOTS, `${name}.png`), fullPage });
}
