import { CanActivate, ExecutionContext, Inject, Injectable, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { NotFoundError } from '../platform/errors/api-errors';
import { ApiKeyGuard } from './api-key.guard';
import { IS_PUBLIC } from './public.decorator';
import { surfaceOf } from './surface';

/**
 * The session half of the guard. Sessions belong to the dashboard, which provides this check
 * (its SessionGuard); auth only says what it needs, so it does not depend on the dashboard.
 */
export const SESSION_CHECK = Symbol('SessionCheck');

export interface SessionCheck {
  canActivate(context: ExecutionContext): Promise<boolean>;
}

/**
 * The one guard of the HTTP app (APP_GUARD, registered by AppModule.api()), deciding by the
 * route's prefix:
 * - `/v1/...`: an active API key holding the route's scope from ROUTE_SCOPES (a route missing
 *   there is refused to every key), then the key's rate limit.
 * - `/dashboard/api/...`: a session cookie (unless the route is @SignedOutAllowed), and the
 *   CSRF checks on every state-changing request.
 * - anything else: only if the route is marked @Public(); otherwise it is answered as if it
 *   did not exist, and logged, because an unmarked route is a mistake in the code.
 * Either way the caller reaches the handler as a Principal (@Caller()).
 */
@Injectable()
export class RouteGuard implements CanActivate {
  private readonly logger = new Logger(RouteGuard.name);

  constructor(
    private readonly apiKeys: ApiKeyGuard,
    @Inject(SESSION_CHECK) private readonly sessions: SessionCheck,
    private readonly reflector: Reflector,
  ) {}

  canActivate(context: ExecutionContext): Promise<boolean> | boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const route = request.routeOptions.url ?? '';
    switch (surfaceOf(route)) {
      case 'api':
        return this.apiKeys.canActivate(context);
      case 'dashboard':
        return this.sessions.canActivate(context);
    }
    const isPublic = this.reflector.getAllAndOverride<boolean | undefined>(IS_PUBLIC, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (isPublic) return true;
    this.logger.error(
      `${request.method} ${route} is outside /v1 and /dashboard/api and not @Public(); refusing it`,
    );
    throw new NotFoundError('route');
  }
}
