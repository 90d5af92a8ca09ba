import { Module, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { join } from 'node:path';
import { AuthModule } from '../auth/auth.module';
import { CampaignQueuesModule } from '../campaigns/campaign-send-queue';
import { CampaignsModule } from '../campaigns/campaigns.module';
import { ErasureModule } from '../erasure/erasure.module';
import { SubscribersModule } from '../subscribers/subscribers.module';
import { SegmentsModule } from '../segments/segments.module';
import { TemplatesModule } from '../templates/templates.module';
import { AccountsModule } from '../accounts/accounts.module';
import { AuthController } from './account/auth.controller';
import { AccountSettingsController } from './account/settings.controller';
import { KeysController } from './account/keys.controller';
import { DashboardKeysRepository } from './account/keys.repository';
import { DashboardKeysService } from './account/keys.service';
import { AuditController } from './audit/audit.controller';
import { CampaignTimelineRepository } from './content/campaign-timeline.repository';
import { DashboardCampaignsController } from './content/campaigns.controller';
import { DashboardSegmentsController } from './content/segments.controller';
import { DashboardTemplatesController } from './content/templates.controller';
import { AuditEventsRepository } from './audit/audit-events.repository';
import { DashboardAuditService } from './audit/audit-log.service';
import { PeopleModule } from './people/people.module';
import { LoginThrottle } from './sessions/login-throttle';
import { SessionGuard } from './sessions/session.guard';
import { SessionsRepository } from './sessions/sessions.repository';
import { SessionsService } from './sessions/sessions.service';
import { SpaController } from './spa/spa.controller';
import { findWebRoot } from './spa/web-assets';
import { DashboardSubscribersController } from './subscribers/subscribers.controller';
import { SubscriberSearchRepository } from './subscribers/subscriber-search.repository';

/**
 * The dashboard (issue 5): a React app under /dashboard and its JSON API under
 * /dashboard/api, authenticated by session cookies (never by API keys). It issues keys through
 * ApiKeysService and acts through the very service instances that /v1 uses, so the rules are
 * the same.
 */
@Module({
  imports: [
    AccountsModule,
    AuthModule,
    PeopleModule,
    ErasureModule,
    SubscribersModule,
    TemplatesModule,
    SegmentsModule,
    CampaignsModule,
    CampaignQueuesModule,
  ],
  controllers: [
    AuthController,
    KeysController,
    AccountSettingsController,
    DashboardSubscribersController,
    DashboardTemplatesController,
    DashboardSegmentsController,
    DashboardCampaignsController,
    AuditController,
    SpaController,
  ],
  providers: [
    SessionsRepository,
    SessionsService,
    SessionGuard,
    LoginThrottle,
    DashboardKeysRepository,
    DashboardKeysService,
    AuditEventsRepository,
    DashboardAuditService,
    SubscriberSearchRepository,
    CampaignTimelineRepository,
  ],
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
