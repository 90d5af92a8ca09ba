import { CanActivate, ExecutionContext, Injectable, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { InsufficientScopeError, InvalidCredentialError } from '../platform/errors/api-errors';
import { RateLimiter } from '../platform/rate-limit/rate-limiter.service';
import { ApiKeysService } from './api-keys.service';
import { requiredScope } from './scopes';
import { API_PREFIX } from './surface';

/**
 * The /v1 half of RouteGuard. Every /v1 route needs a bearer key that is active (else 401)
 * and holds the scope ROUTE_SCOPES names for the route (else 403). A /v1 route missing from
 * that table is refused to every key. Routes outside /v1 are not its business.
 *
 * Every answer carries a rate-limit budget. A request without a valid key is counted against
 * its address's anonymous budget, so a bad key never spends a real key's quota and guessing
 * keys is throttled like any other anonymous traffic; a valid key is counted against its own
 * budget before the scope check, since it did reach us.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  private readonly logger = new Logger(ApiKeyGuard.name);

  constructor(
    private readonly keys: ApiKeysService,
    private readonly rateLimiter: RateLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const route = request.routeOptions.url ?? '';
    if (!route.startsWith(API_PREFIX)) return true;

    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const key = await this.keys.authenticate(bearerToken(request) ?? '');
    if (!key) {
      await this.rateLimiter.enforceForAddress(request.ip, reply);
      throw new InvalidCredentialError();
    }
    const principal = { accountId: key.accountId, apiKeyId: key.id, scopes: key.scopes };
    await this.rateLimiter.enforce(principal, request.method, route, reply);

    const scope = requiredScope(request.method, route);
    if (!scope) {
      this.logger.error(`${request.method} ${route} has no entry in ROUTE_SCOPES; refusing it`);
      throw new InsufficientScopeError('(none declared for this route)');
    }
    if (!key.scopes.includes(scope)) throw new InsufficientScopeError(scope);

    request.principal = principal;
    return true;
  }
}

function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  const match = header ? /^Bearer +(\S+) *$/i.exec(header) : null;
  return match?.[1];
}
