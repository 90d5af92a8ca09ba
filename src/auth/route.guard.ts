import { CanActivate, ExecutionContext, Inject, Injectable, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { NotFoundError } from '../platform/errors/api-errors';
import { RateLimiter } from '../platform/rate-limit/rate-limiter.service';
import { ApiKeyGuard } from './api-key.guard';
import { IS_PUBLIC, PublicOptions } from './public.decorator';
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
 *   CSRF checks on every state-changing request; then the person's rate limit, or the
 *   client address's when nobody is signed in (sign-in and sign-up).
 * - anything else: only if the route is marked @Public(), counted against the client
 *   address's rate limit (the budget the mark names); an unmarked route is answered as if
 *   it did not exist, and logged, because it is a mistake in the code.
 * Either way the caller reaches the handler as a Principal (@Caller()).
 */
@Injectable()
export class RouteGuard implements CanActivate {
  private readonly logger = new Logger(RouteGuard.name);

  constructor(
    private readonly apiKeys: ApiKeyGuard,
    @Inject(SESSION_CHECK) private readonly sessions: SessionCheck,
    private readonly reflector: Reflector,
    private readonly rateLimiter: RateLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const route = request.routeOptions.url ?? '';
    switch (surfaceOf(route)) {
      case 'api':
        return this.apiKeys.canActivate(context);
      case 'dashboard': {
        // A refused request counts too (else guessing CSRF tokens or sessions would be free);
        // past the limit, the 429 is the answer.
        const refusal = await this.sessions.canActivate(context).then(
          () => undefined,
          (error: Error) => error,
        );
        const person = request.principal;
        if (person?.userId) {
          await this.rateLimiter.enforceForUser(person.accountId, person.userId, reply);
        } else {
          await this.rateLimiter.enforceForAddress(request.ip, reply);
        }
        if (refusal) throw refusal;
        return true;
      }
    }
    const mark = this.reflector.getAllAndOverride<PublicOptions | undefined>(IS_PUBLIC, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (mark) {
      if (mark.perAddressLimit) {
        await this.rateLimiter.enforceForAddress(request.ip, reply, mark.perAddressLimit);
      }
      return true;
    }
    this.logger.error(
      `${request.method} ${route} is outside /v1 and /dashboard/api and not @Public(); refusing it`,
    );
    throw new NotFoundError('route');
  }
}
