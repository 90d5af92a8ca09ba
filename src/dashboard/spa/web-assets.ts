import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * Where `vite build` put the dashboard's static files: dist/web, found from the compiled
 * server (dist/dashboard/spa) or from the sources when tests run them (src/dashboard/spa).
 */
export function findWebRoot(): string | undefined {
  const candidates = [resolve(__dirname, '../../web'), resolve(__dirname, '../../../dist/web')];
  return candidates.find((dir) => existsSync(join(dir, 'index.html')));
}

export function readIndexHtml(webRoot: string | undefined): string | undefined {
  return webRoot ? readFileSync(join(webRoot, 'index.html'), 'utf8') : undefined;
}

/**
 * The page's Content-Security-Policy: scripts only from our own origin; inline styles and
 * remote images are allowed because template previews render customers' email HTML (in a
 * sandboxed frame without scripts).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: https: http:",
  "frame-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');
