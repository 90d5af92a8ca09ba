import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { ApiAuthModule } from './auth/auth.module';
import { RouteGuard } from './auth/route.guard';
import { CampaignsModule } from './campaigns/campaigns.module';
import { DashboardModule } from './dashboard/dashboard.module';
import { SenderDomainsApiModule } from './domains/sender-domains-api.module';
import { ErasureApiModule } from './erasure/erasure-api.module';
import { HeraldConfig, loadConfig } from './platform/config/config';
import { ApiExceptionFilter } from './platform/errors/api-exception.filter';
import { RequestValidationPipe } from './platform/errors/validation.pipe';
import { HealthModule } from './health/health.controller';
import { OptOutModule } from './opt-out/opt-out.module';
import { ProviderWebhooksModule } from './provider-webhooks/provider-webhooks.module';
import { SegmentsApiModule } from './segments/segments-api.module';
import { ConversionsModule } from './conversions/conversions.module';
import { StatsModule } from './stats/stats.module';
import { WebhooksApiModule } from './webhooks/webhooks-api.module';
import { SubmissionModule } from './submission/submission.module';
import { SubscribersApiModule } from './subscribers/subscribers-api.module';
import { SuppressionModule } from './suppression/suppression.module';
import { TemplatesApiModule } from './templates/templates-api.module';
import { TransactionalApiModule } from './transactional/transactional-api.module';
import { coreModules, WorkerModule, workerModules } from './worker.module';
import { ExportsApiModule } from './exports/exports-api.module';
import { ImportsApiModule } from './imports/imports-api.module';
import { AutomationsApiModule } from './automations/automations-api.module';
import { MessagesApiModule } from './messages/messages-api.module';
import { AccountsApiModule } from './accounts/accounts-api.module';

export interface AppOptions {
  /** Run the BullMQ processors in this process too. */
  workers: boolean;
}

/**
 * Herald is one codebase with several entry points, and the API and the workers build their
 * root module from the same parts (coreModules and workerModules, in worker.module.ts): the
 * API gets controllers, the guard, the filter and the pipe; workers get only the data layer
 * and the processors. The operator CLI builds a
 * smaller root per command (src/cli/cli-context.ts): importing this file loads every domain.
 */
@Module({})
export class AppModule {
  /** The HTTP API; with `workers` (the default, `npm start`) it also runs the processors. */
  static api(
    config: HeraldConfig = loadConfig(),
    options: AppOptions = { workers: true },
  ): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ...coreModules(config),
        ...(options.workers ? workerModules(config.workerRoles) : []),
        HealthModule,
        ApiAuthModule,
        SubscribersApiModule,
        ErasureApiModule,
        SuppressionModule,
        SegmentsApiModule,
        TemplatesApiModule,
        CampaignsModule,
        TransactionalApiModule,
        SenderDomainsApiModule,
        ImportsApiModule,
        ExportsApiModule,
        MessagesApiModule,
        ProviderWebhooksModule,
        StatsModule,
        ConversionsModule,
        WebhooksApiModule,
        OptOutModule,
        DashboardModule,
        AccountsApiModule,
        SubmissionModule,
        AutomationsApiModule,
      ],
      providers: [
        // Every route: API key + scope on /v1, session + CSRF on /dashboard/api, else @Public().
        { provide: APP_GUARD, useClass: RouteGuard },
        { provide: APP_FILTER, useClass: ApiExceptionFilter },
        { provide: APP_PIPE, useClass: RequestValidationPipe },
      ],
    };
  }

  /** The workers alone: WorkerModule, which worker.ts loads without this file. */
  static worker(config?: HeraldConfig): DynamicModule {
    return WorkerModule.forRoot(config);
  }
}
