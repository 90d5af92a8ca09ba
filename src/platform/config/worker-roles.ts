import { ConfigError } from './config-error';

/**
 * The kinds of background work a process with workers can take on: each names the module
 * whose processors (or, for `inbound`, whose SMTP port) it runs.
 */
export const WORKER_ROLES = [
  'campaigns',
  'transactional',
  'automations',
  'webhooks',
  'imports',
  'exports',
  'domains',
  'inbound',
  'messages',
] as const;
export type WorkerRole = (typeof WORKER_ROLES)[number];

/**
 * WORKER_ROLES: which work this process's workers take. Unset or `all`: every kind. A list
 * (`transactional`, or `campaigns,automations`) takes only those; a list of exclusions
 * (`-transactional`) takes every kind but those. A dedicated transactional worker beside
 * campaign workers that leave it alone keeps one person's message from waiting behind a
 * campaign's burst in the same event loop. Every kind must run somewhere: work of a kind no
 * process takes waits in its queue.
 */
export function parseWorkerRoles(raw: string | undefined): WorkerRole[] {
  const value = raw?.trim().toLowerCase() ?? '';
  if (value === '' || value === 'all') return [...WORKER_ROLES];
  const entries = value.split(',').map((entry) => entry.trim());
  const excluding = entries.every((entry) => entry.startsWith('-'));
  if (!excluding && entries.some((entry) => entry.startsWith('-'))) {
    throw new ConfigError(
      'WORKER_ROLES',
      'must list roles to take or roles to leave (-role), not both',
    );
  }
  const named = entries.map((entry) => (excluding ? entry.slice(1) : entry));
  const unknown = named.filter((name) => !(WORKER_ROLES as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new ConfigError(
      'WORKER_ROLES',
      `must be all or a list of ${WORKER_ROLES.join(', ')} (each may start with -), got "${raw}"`,
    );
  }
  const roles = WORKER_ROLES.filter((role) => named.includes(role) !== excluding);
  if (roles.length === 0) throw new ConfigError('WORKER_ROLES', 'leaves no work to take');
  return roles;
}
