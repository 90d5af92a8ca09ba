import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { AccountId } from '../platform/database/account-id';

/**
 * Who is calling, and the one thing services receive about it: an API key (on /v1) or a
 * signed-in person (on /dashboard/api). RouteGuard sets it on every request it lets through
 * to either surface; the services decide and audit by it, whichever surface it came from.
 */
export type Principal = KeyPrincipal | UserPrincipal;

export interface KeyPrincipal {
  /** From the authenticated key: the only way a request gets an AccountId. */
  accountId: AccountId;
  apiKeyId: string;
  userId?: undefined;
  scopes: readonly string[];
}

/** What a signed-in person may do in their account (src/dashboard/people/roles.ts). */
export type PersonRole = 'owner' | 'admin' | 'member';

export interface UserPrincipal {
  /** From the signed-in person's session. */
  accountId: AccountId;
  userId: string;
  /** Read with the session on every request: a changed role holds from the next one. */
  role: PersonRole;
  apiKeyId?: undefined;
  scopes: readonly string[];
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

/** Injects the caller's Principal into a controller method (a /v1 or /dashboard/api route). */
export const Caller = createParamDecorator((_: unknown, context: ExecutionContext): Principal => {
  const principal = context.switchToHttp().getRequest<FastifyRequest>().principal;
  if (!principal) throw new Error('Caller used on a route the auth guard did not authenticate');
  return principal;
});
