import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

/**
 * Who is calling: a /v1 caller's API key (set by the auth guard on every authenticated /v1
 * request), or a signed-in dashboard user acting through the same services (src/dashboard).
 */
export type Principal = KeyPrincipal | UserPrincipal;

export interface KeyPrincipal {
  accountId: string;
  apiKeyId: string;
  userId?: undefined;
  scopes: readonly string[];
}

export interface UserPrincipal {
  accountId: string;
  userId: string;
  apiKeyId?: undefined;
  scopes: readonly string[];
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

/** Injects the caller's Principal into a controller method. */
export const Caller = createParamDecorator((_: unknown, context: ExecutionContext): Principal => {
  const principal = context.switchToHttp().getRequest<FastifyRequest>().principal;
  if (!principal) throw new Error('Caller used on a route the auth guard did not authenticate');
  return principal;
});
