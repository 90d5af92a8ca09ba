import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Principal } from '../../auth/principal';
import { SCOPES } from '../../auth/scopes';

/** The person behind a dashboard request, as the session guard found them. */
export interface DashboardUser {
  sessionId: string;
  userId: string;
  accountId: string;
  email: string;
  name: string | null;
  role: string;
  accountName: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    dashboardUser?: DashboardUser;
  }
}

/** Injects the signed-in DashboardUser; only on routes the session guard protects. */
export const SignedIn = createParamDecorator((_: unknown, context: ExecutionContext) => {
  const user = context.switchToHttp().getRequest<FastifyRequest>().dashboardUser;
  if (!user) throw new Error('SignedIn used on a route the session guard let through unsigned');
  return user;
});

export const SIGNED_OUT_ALLOWED = 'dashboard:signed-out-allowed';

/** Marks a dashboard route that works without a session (sign-in, sign-up, session probe). */
export const SignedOutAllowed = () => SetMetadata(SIGNED_OUT_ALLOWED, true);

/**
 * How the dashboard acts through the domain services, which speak in API principals. A
 * signed-in member holds every scope of their account (there are no roles yet) and no key.
 */
export function actingAs(user: DashboardUser): Principal {
  return { accountId: user.accountId, scopes: SCOPES, userId: user.userId };
}
