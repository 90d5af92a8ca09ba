import type { PersonRole, UserPrincipal } from '../../auth/principal';
import { ApiError } from '../../platform/errors/api-errors';
import { isOneOf } from '../../platform/validation/one-of';

/**
 * What each role may do in its account, beyond the account's data (subscribers, campaigns,
 * templates, segments, domains, webhooks, imports and exports, settings), which every role
 * uses alike:
 *
 * - owner: everything, and the people: changes anyone's role, removes anyone. An account
 *   always keeps at least one owner (its last owner can be neither demoted nor removed).
 * - admin: API keys (list, issue, revoke) and invitations (invite, withdraw), and removes
 *   members; never changes a role, and never removes an admin or an owner.
 * - member: no API keys, invitations or people management; sees who is in the account.
 */
export const ROLES = ['owner', 'admin', 'member'] as const satisfies readonly PersonRole[];

export const isRole = (value: unknown): value is PersonRole => isOneOf(ROLES, value);

/** Issuing, listing and revoking API keys: a key outlives its issuer's role. */
export const canManageKeys = (role: PersonRole) => role === 'owner' || role === 'admin';

/** Inviting people (who join as members) and withdrawing invitations. */
export const canInvite = (role: PersonRole) => role === 'owner' || role === 'admin';

/** Giving anyone another role. */
export const canChangeRoles = (role: PersonRole) => role === 'owner';

/** Removing someone holding `target`. */
export const canRemove = (role: PersonRole, target: PersonRole) =>
  role === 'owner' || (role === 'admin' && target === 'member');

/** 403 insufficient_scope: the caller's role does not allow what they asked. */
export class RoleForbiddenError extends ApiError {
  constructor(role: PersonRole, what: string) {
    super(403, `Your role (${role}) cannot ${what}. Ask an owner of the account.`);
  }
}

/** Throws RoleForbiddenError unless `allowed` holds for the caller's role. */
export function requireRole(
  caller: UserPrincipal,
  allowed: (role: PersonRole) => boolean,
  what: string,
): void {
  if (!allowed(caller.role)) throw new RoleForbiddenError(caller.role, what);
}

/** 409: the change would leave the account without an owner. */
export class LastOwnerError extends ApiError {
  constructor() {
    super(
      409,
      'This is the last owner of the account: make someone else an owner first, then change or remove this person.',
    );
  }
}
