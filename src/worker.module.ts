import { DynamicModule, Module, ModuleMetadata } from '@nestjs/common';
import { AuditModule } from './audit/audit-log';
import { CampaignWorkersModule } from './campaigns/campaign-workers.module';
import { SenderDomainsWorkersModule } from './domains/sender-domains.module';
import { ExportWorkersModule } from './exports/exports.module';
import { ImportWorkersModule } from './imports/imports.module';
import { InboundMailModule } from './inbound/inbound-mail.module';
import { ReadinessModule } from './health/readiness';
import { HeraldConfig } from './platform/config/config';
import { ConfigModule } from './platform/config/config.module';
import { CryptoModule } from './platform/crypto/crypto.module';
import { DatabaseModule } from './platform/database/database.module';
import { LifecycleModule } from './platform/lifecycle';
import { MessageWorkersModule } from './messages/messages.module';
import { MailModule } from './platform/mail/mail-transport';
import { MetricsModule } from './platform/metrics/herald-metrics';
import { PaginationModule } from './platform/pagination/pagination.module';
import { QueueModule } from './platform/queue/queue.module';
import { RedisModule } from './platform/redis/redis.module';
import { TransactionalWorkerModule } from './transactional/transactional.module';
import { WebhookWorkersModule } from './webhooks/webhooks.module';

/**
 * What every process needs: config, PostgreSQL, Redis, queues, mail, hashing, audit, and what
 * its operator watches it by (metrics, readiness, the shutdown state).
 */
export function coreModules(config?: HeraldConfig): NonNullable<ModuleMetadata['imports']> {
  return [
    ConfigModule.forRoot(config),
    LifecycleModule,
    DatabaseModule,
    MetricsModule,
    ReadinessModule,
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
export function workerModules(): NonNullable<ModuleMetadata['imports']> {
  return [
    CampaignWorkersModule,
    TransactionalWorkerModule,
    SenderDomainsWorkersModule,
    ImportWorkersModule,
    ExportWorkersModule,
    InboundMailModule,
    WebhookWorkersModule,
    MessageWorkersModule,
  ];
}

/**
 * The root module of `npm run start:worker`: the core and the processors, nothing else. It
 * lives apart from app.module.ts so that a worker process never loads the API's controllers,
 * guards and OpenAPI document (a worker's memory is its footprint: docs/decisions.md).
 */
@Module({})
export class WorkerModule {
  static forRoot(config?: HeraldConfig): DynamicModule {
    return { module: WorkerModule, imports: [...coreModules(config), ...workerModules()] };
  }
}
