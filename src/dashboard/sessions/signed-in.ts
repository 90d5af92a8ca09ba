import { SetMetadata } from '@nestjs/common';
import { PersonRole, UserPrincipal } from '../../auth/principal';
import { SCOPES } from '../../auth/scopes';
import type { AccountId } from '../../platform/database/account-id';

/**
 * The session behind a dashboard request, as the session guard found it. Services get the
 * caller as a UserPrincipal; only the session endpoints (who am I, sign out) read this.
 */
export interface DashboardSession {
  sessionId: string;
  userId: string;
  accountId: AccountId;
  email: string;
  name: string | null;
  role: PersonRole;
  accountName: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    dashboardSession?: DashboardSession;
  }
}

export const SIGNED_OUT_ALLOWED = 'dashboard:signed-out-allowed';

/** Marks a dashboard route that works without a session (sign-in, sign-up, session probe). */
export const SignedOutAllowed = () => SetMetadata(SIGNED_OUT_ALLOWED, true);

/**
 * The principal a signed-in person acts as: every scope of their account's data, whatever
 * the role, and no key. What the role withholds (API keys, invitations, people) is not a
 * /v1 scope; the dashboard's services check the role (people/roles.ts).
 */
export function userPrincipal(session: Pick<DashboardSession, 'accountId' | 'userId' | 'role'>) {
  return {
    accountId: session.accountId,
    userId: session.userId,
    role: session.role,
    scopes: SCOPES,
  } satisfies UserPrincipal;
}
