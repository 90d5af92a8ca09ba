import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { HeraldConfig } from '../../platform/config/config';
import { CONFIG } from '../../platform/config/config.module';
import { KeyedHasher } from '../../platform/crypto/keyed-hasher';
import { SESSION_COOKIE, VISITOR_COOKIE } from './cookies';
import { CSRF_HEADER, CsrfBinding, csrfTokenValid, sameOrigin } from './csrf';
import { CsrfRejectedError, SignInRequiredError } from './dashboard-errors';
import { SessionsService } from './sessions.service';
import { SIGNED_OUT_ALLOWED, userPrincipal } from './signed-in';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The /dashboard/api half of RouteGuard: finds the session behind the cookie and makes its
 * person the request's principal, refuses a request without one unless the route is marked
 * @SignedOutAllowed, and refuses every state-changing request that fails the CSRF checks
 * (see csrf.ts). It never looks at bearer keys.
 */
@Injectable()
export class SessionGuard implements CanActivate {
  constructor(
    private readonly sessions: SessionsService,
    private readonly hasher: KeyedHasher,
    private readonly reflector: Reflector,
    @Inject(CONFIG) private readonly config: HeraldConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const session = await this.sessions.resolve(request.cookies[SESSION_COOKIE]);
    if (session) {
      request.dashboardSession = {
        sessionId: session.id,
        userId: session.user.id,
        accountId: session.user.accountId,
        email: session.user.email,
        name: session.user.name,
        role: session.user.role,
        accountName: session.account.name,
      };
      request.principal = userPrincipal(request.dashboardSession);
    }

    const signedOutAllowed = this.reflector.getAllAndOverride<boolean | undefined>(
      SIGNED_OUT_ALLOWED,
      [context.getHandler(), context.getClass()],
    );
    if (!session && !signedOutAllowed) throw new SignInRequiredError();
    if (!SAFE_METHODS.has(request.method)) {
      const visitor = request.cookies[VISITOR_COOKIE];
      const binding: CsrfBinding | undefined = session
        ? { kind: 'session', id: session.id }
        : visitor
          ? { kind: 'visitor', nonce: visitor }
          : undefined;
      const sent = request.headers[CSRF_HEADER];
      const token = typeof sent === 'string' ? sent : undefined;
      if (
        !sameOrigin(request, this.config.publicUrl) ||
        !csrfTokenValid(this.hasher, binding, token)
      ) {
        throw new CsrfRejectedError();
      }
    }

    return true;
  }
}
