import { Scope, SCOPES } from '../../auth/scopes';

/** What each scope lets a key do, in the words the Create key form shows. */
const GRANTS: Record<Scope, string> = {
  'subscribers:read': 'Read subscribers',
  'subscribers:write': 'Create, update and erase subscribers',
  'segments:read': 'Read segments',
  'segments:write': 'Create, update and delete segments',
  'campaigns:read': 'Read campaigns',
  'campaigns:write': 'Create and update campaigns',
  'campaigns:send': 'Send a campaign',
  'templates:read': 'Read and preview templates',
  'templates:write': 'Create, update and delete templates',
  'transactional:send': 'Send transactional email',
  'stats:read': 'Read statistics',
  'stats:write': 'Record conversions (revenue)',
  'webhooks:read': 'Read webhook endpoints and their delivery logs',
  'webhooks:write': 'Create, change and delete webhook endpoints; retry deliveries',
  'domains:read': 'Read sender domains and their DNS records',
  'domains:write': 'Add, verify, rotate and delete sender domains',
  'messages:read': 'Look up sent messages and their events (the message log)',
};

export interface ScopeGroup {
  resource: string;
  scopes: { scope: Scope; grants: string }[];
}

/** Every scope of src/auth/scopes.ts, grouped by resource in the table's order. */
export function scopeCatalog(): ScopeGroup[] {
  const groups = new Map<string, ScopeGroup>();
  for (const scope of SCOPES) {
    const resource = scope.split(':')[0];
    const group = groups.get(resource) ?? { resource, scopes: [] };
    group.scopes.push({ scope, grants: GRANTS[scope] });
    groups.set(resource, group);
  }
  return [...groups.values()];
}
