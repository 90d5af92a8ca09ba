import { BullModule } from '@nestjs/bullmq';
import { Global, Module } from '@nestjs/common';
import { HeraldConfig } from '../config/config';
import { CONFIG } from '../config/config.module';
import { queueConnection } from '../store/queue-backend';
import { HeraldWorker } from './herald-worker';

/**
 * Every BullMQ queue Herald uses. A domain module registers the queues it adds jobs to with
 * `BullModule.registerQueue({ name: QUEUES.x })`; processors live in separate worker modules
 * that only worker-capable processes (AppModule.worker(), AppModule.api() with workers) load.
 */
export const QUEUES = {
  /** One job per campaign send: streams the audience into the ledger and enqueues deliveries. */
  campaignFanout: 'campaign-fanout',
  /** One job per ledger batch of a campaign: renders and sends those recipients. */
  campaignDelivery: 'campaign-delivery',
  /** Transactional messages. */
  transactional: 'transactional',
  /** One job per CSV import of subscribers (job id = import id). */
  subscriberImport: 'subscriber-import',
  /** One job per CSV export of subscribers (job id = export id). */
  subscriberExport: 'subscriber-export',
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

// Every processor's BullMQ Worker: its connections all wait through an outage, and a fetch
// that fails pauses before the next (herald-worker.ts).
BullModule.workerClass = HeraldWorker;

/**
 * BullMQ's root configuration, once per process: the Redis of REDIS_URL or REDIS_CLUSTER_NODES,
 * or PostgreSQL when neither is set (queue-backend.ts), with QUEUE_PREFIX as the key prefix so
 * several installations (and parallel test files) can share one store.
 */
@Global()
@Module({
  imports: [
    BullModule.forRootAsync({
      inject: [CONFIG],
      useFactory: (config: HeraldConfig) => queueConnection(config),
    }),
  ],
  exports: [BullModule],
})
export class QueueModule {}
