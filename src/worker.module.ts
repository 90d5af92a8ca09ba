import { DynamicModule, Module, ModuleMetadata, Type } from '@nestjs/common';
import { AuditModule } from './audit/audit-log';
import { AutomationWorkersModule } from './automations/automations.module';
import { CampaignWorkersModule } from './campaigns/campaign-workers.module';
import { SenderDomainsWorkersModule } from './domains/sender-domains.module';
import { ExportWorkersModule } from './exports/exports.module';
import { ImportWorkersModule } from './imports/imports.module';
import { InboundMailModule } from './inbound/inbound-mail.module';
import { ReadinessModule } from './health/readiness';
import { HeraldConfig, loadConfig } from './platform/config/config';
import { ConfigModule } from './platform/config/config.module';
import { CryptoModule } from './platform/crypto/crypto.module';
import { DatabaseModule } from './platform/database/database.module';
import { LifecycleModule } from './platform/lifecycle';
import { MessageWorkersModule } from './messages/messages.module';
import { MailModule } from './platform/mail/mail-transport';
import { MetricsModule } from './platform/metrics/herald-metrics';
import { PaginationModule } from './platform/pagination/pagination.module';
import { QueueModule } from './platform/queue/queue.module';
import { StoreModule } from './platform/store/store.module';
import { WorkerRole } from './platform/config/worker-roles';
import { TransactionalWorkerModule } from './transactional/transactional.module';
import { WebhookWorkersModule } from './webhooks/webhooks.module';

/**
 * What every process needs: config, PostgreSQL, Redis, queues, mail, hashing, audit, and what
 * its operator watches it by (metrics, readiness, the shutdown state).
 */
export function coreModules(
  config: HeraldConfig = loadConfig(),
): NonNullable<ModuleMetadata['imports']> {
  return [
    ConfigModule.forRoot(config),
    LifecycleModule,
    DatabaseModule,
    MetricsModule,
    ReadinessModule,
    StoreModule.forRoot(config),
    QueueModule,
    MailModule,
    CryptoModule,
    AuditModule,
    PaginationModule,
  ];
}

/** The module each kind of work (WORKER_ROLES) is done by. */
const ROLE_MODULES: Record<WorkerRole, Type> = {
  campaigns: CampaignWorkersModule,
  transactional: TransactionalWorkerModule,
  domains: SenderDomainsWorkersModule,
  imports: ImportWorkersModule,
  exports: ExportWorkersModule,
  inbound: InboundMailModule,
  webhooks: WebhookWorkersModule,
  automations: AutomationWorkersModule,
  messages: MessageWorkersModule,
};

/**
 * The BullMQ processors and the inbound SMTP port of the kinds of work this process takes
 * (`roles`, from WORKER_ROLES). Only these modules start workers, so a process that should not
 * consume jobs or take mail (`--api-only`, the CLI) leaves them out.
 */
export function workerModules(
  roles: readonly WorkerRole[],
): NonNullable<ModuleMetadata['imports']> {
  return roles.map((role) => ROLE_MODULES[role]);
}

/**
 * The root module of `npm run start:worker`: the core and the processors, nothing else. It
 * lives apart from app.module.ts so that a worker process never loads the API's controllers,
 * guards and OpenAPI document (a worker's memory is its footprint: docs/decisions.md).
 */
@Module({})
export class WorkerModule {
  static forRoot(config: HeraldConfig = loadConfig()): DynamicModule {
    return {
      module: WorkerModule,
      imports: [...coreModules(config), ...workerModules(config.workerRoles)],
    };
  }
}
