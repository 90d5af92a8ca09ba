import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

/** Who is calling: set by the auth guard on every authenticated /v1 request. */
export interface Principal {
  accountId: string;
  apiKeyId: string;
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
