import { DynamicModule, Module, ModuleMetadata } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { AuditModule } from './audit/audit-log';
import { ApiAuthModule } from './auth/auth.module';
import { RouteGuard } from './auth/route.guard';
import { CampaignWorkersModule } from './campaigns/campaign-workers.module';
import { CampaignsModule } from './campaigns/campaigns.module';
import { DashboardModule } from './dashboard/dashboard.module';
import { SenderDomainsModule, SenderDomainsWorkersModule } from './domains/sender-domains.module';
import { ErasureModule } from './erasure/erasure.module';
import { ExportsModule, ExportWorkersModule } from './exports/exports.module';
import { ImportsModule, ImportWorkersModule } from './imports/imports.module';
import { InboundMailModule } from './inbound/inbound-mail.module';
import { HeraldConfig } from './platform/config/config';
import { ConfigModule } from './platform/config/config.module';
import { CryptoModule } from './platform/crypto/crypto.module';
import { DatabaseModule } from './platform/database/database.module';
import { MailModule } from './platform/mail/mail-transport';
import { QueueModule } from './platform/queue/queue.module';
import { ApiExceptionFilter } from './platform/errors/api-exception.filter';
import { RequestValidationPipe } from './platform/errors/validation.pipe';
import { HealthModule } from './platform/health/health.controller';
import { OptOutModule } from './opt-out/opt-out.module';
import { ProviderWebhooksModule } from './provider-webhooks/provider-webhooks.module';
import { PaginationModule } from './platform/pagination/pagination.module';
import { RedisModule } from './platform/redis/redis.module';
import { SegmentsModule } from './segments/segments.module';
import { ConversionsModule } from './conversions/conversions.module';
import { StatsModule } from './stats/stats.module';
import { WebhooksModule, WebhookWorkersModule } from './webhooks/webhooks.module';
import { SubscribersModule } from './subscribers/subscribers.module';
import { SuppressionModule } from './suppression/suppression.module';
import { TemplatesModule } from './templates/templates.module';
import {
  TransactionalModule,
  TransactionalWorkerModule,
} from './transactional/transactional.module';

export interface AppOptions {
  /** Run the BullMQ processors in this process too. */
  workers: boolean;
}

/**
 * Herald is one codebase with several entry points, and the API and the workers build their
 * root module here from the same parts: the API gets controllers, the guard, the filter and
 * the pipe; workers get only the data layer and the processors. The operator CLI builds a
 * smaller root per command (src/cli/cli-context.ts): importing this file loads every domain.
 */
@Module({})
export class AppModule {
  /** What every process needs: config, PostgreSQL, Redis, queues, mail, hashing, audit. */
  private static core(config?: HeraldConfig) {
    return [
      ConfigModule.forRoot(config),
      DatabaseModule,
      RedisModule,
      QueueModule,
      MailModule,
      CryptoModule,
      AuditModule,
      PaginationModule,
    ];
  }

  /**
   * The BullMQ processors and the inbound SMTP port. Only these modules start workers, so a
   * process that should not consume jobs or take mail (`--api-only`, the CLI) leaves them out.
   */
  private static workers(): NonNullable<ModuleMetadata['imports']> {
    return [
      CampaignWorkersModule,
      TransactionalWorkerModule,
      SenderDomainsWorkersModule,
      ImportWorkersModule,
      ExportWorkersModule,
      InboundMailModule,
      WebhookWorkersModule,
    ];
  }

  /** The HTTP API; with `workers` (the default, `npm start`) it also runs the processors. */
  static api(config?: HeraldConfig, options: AppOptions = { workers: true }): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ...AppModule.core(config),
        ...(options.workers ? AppModule.workers() : []),
        HealthModule,
        ApiAuthModule,
        SubscribersModule,
        ErasureModule,
        SuppressionModule,
        SegmentsModule,
        TemplatesModule,
        CampaignsModule,
        TransactionalModule,
        SenderDomainsModule,
        ImportsModule,
        ExportsModule,
        ProviderWebhooksModule,
        StatsModule,
        ConversionsModule,
        WebhooksModule,
        OptOutModule,
        DashboardModule,
      ],
      providers: [
        // Every route: API key + scope on /v1, session + CSRF on /dashboard/api, else @Public().
        { provide: APP_GUARD, useClass: RouteGuard },
        { provide: APP_FILTER, useClass: ApiExceptionFilter },
        { provide: APP_PIPE, useClass: RequestValidationPipe },
      ],
    };
  }

  static worker(config?: HeraldConfig): DynamicModule {
    return { module: AppModule, imports: [...AppModule.core(config), ...AppModule.workers()] };
  }
}
