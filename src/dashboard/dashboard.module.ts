import { Module, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { join } from 'node:path';
import { AccountsModule } from '../accounts/accounts.module';
import { AuthModule } from '../auth/auth.module';
import { AccessModule } from './access/access.module';
import { AccessController } from './account/access.controller';
import { AuthController } from './account/auth.controller';
import { KeysController } from './account/keys.controller';
import { DashboardKeysService } from './account/keys.service';
import { PeopleController } from './account/people.controller';
import { SessionIssuer } from './account/session-issuer';
import { DashboardAuditService } from './audit/audit-log.service';
import { AuditController } from './audit/audit.controller';
import { PeopleModule } from './people/people.module';
import { LoginThrottle } from './sessions/login-throttle';
import { SessionsModule } from './sessions/sessions.module';
import { RootController } from './spa/root.controller';
import { SpaController } from './spa/spa.controller';
import { findWebRoot } from './spa/web-assets';

/**
 * The dashboard: a React app under /dashboard, and what only people have: sessions and
 * sign-in, invitations and password resets, API keys, the audit page. Subscribers, templates, segments and campaigns are
 * served to it by their own domain controllers under /dashboard/api, with the session's
 * person as the caller (see RouteGuard), so the rules and the audit are those of /v1.
 */
@Module({
  imports: [AuthModule, AccountsModule, PeopleModule, SessionsModule, AccessModule],
  controllers: [
    AuthController,
    AccessController,
    PeopleController,
    KeysController,
    AuditController,
    SpaController,
    RootController,
  ],
  providers: [LoginThrottle, SessionIssuer, DashboardKeysService, DashboardAuditService],
  // The session check of RouteGuard, which AppModule registers.
  exports: [SessionsModule],
})
export class DashboardModule implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  /** Hashed, immutable assets from the Vite build, and headers for every dashboard response. */
  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (!fastify) return;
    fastify.addHook('onSend', async (request, reply) => {
      if (!request.url.startsWith('/dashboard')) return;
      void reply.header('x-content-type-options', 'nosniff');
      void reply.header('referrer-policy', 'same-origin');
      void reply.header('x-frame-options', 'DENY');
      if (request.url.startsWith('/dashboard/api/')) void reply.header('cache-control', 'no-store');
    });
    const webRoot = findWebRoot();
    if (webRoot) {
      // Not awaited: awaiting a plugin inside Nest's init stalls avvio; Fastify loads it on the
      // ready() that createHttpApp awaits.
      void fastify.register(fastifyStatic, {
        root: join(webRoot, 'assets'),
        prefix: '/dashboard/assets/',
        decorateReply: false,
        index: false,
        immutable: true,
        maxAge: '365d',
      });
    }
  }
}
