import { Global, Inject, Injectable, Module, OnModuleDestroy } from '@nestjs/common';
import { Queue, QueueOptions } from 'bullmq';
import {
  AggregatorRegistry,
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  MetricObjectWithValues,
  MetricValue,
  Registry,
} from 'prom-client';
import { HeraldConfig } from '../config/config';
import { CONFIG } from '../config/config.module';
import { PgPool } from '../database/pg-pool';
import { QUEUES } from '../queue/queue.module';
import { createRedisClient, hashTaggedPrefix, RedisClient } from '../redis/redis-clients';
import { queueConnection } from '../store/queue-backend';

/** Which sender a message came from: the label of the message counters. */
export type MessageSource = 'campaign' | 'transactional';
/** What became of a message handed to the relay: delivered, refused for now, or failed. */
export type MessageOutcome = 'sent' | 'deferred' | 'failed';

/** The job states a queue's depth is reported in. */
const QUEUE_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'failed'] as const;

/** A scrape never waits longer than this for Redis to count the queues. */
const QUEUE_COUNT_MS = 1_000;

/** Metrics of another process (npm start's workers), in prom-client's JSON form. */
export type MetricsSource = () => Promise<
  MetricObjectWithValues<MetricValue<string>>[] | undefined
>;

/**
 * The process's Prometheus metrics, on a registry of its own: messages by
 * source and outcome, SMTP send latency, HTTP requests by route and status, the PostgreSQL
 * pool's use, queue depths, and Node's own process metrics. Counters count what this process
 * did; a scrape of every process, summed, is the installation's.
 *
 * Queue depths are the same for every process (they live in Redis) and are read at scrape
 * time through a connection of their own, opened at the first scrape; aggregate them with
 * max(), not sum().
 */
@Injectable()
export class HeraldMetrics implements OnModuleDestroy {
  readonly registry = new Registry();
  private readonly messages: Counter<'source' | 'outcome'>;
  private readonly sendSeconds: Histogram;
  private readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  private readonly httpSeconds: Histogram<'method' | 'route'>;
  private readonly sources: MetricsSource[] = [];
  private queueConnection: RedisClient | undefined;
  private queues: Queue[] | undefined;

  constructor(
    @Inject(CONFIG) private readonly config: HeraldConfig,
    pool: PgPool,
  ) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.messages = new Counter({
      name: 'herald_messages_total',
      help: 'Messages handed to the relay, by source and outcome (sent, deferred, failed).',
      labelNames: ['source', 'outcome'],
      registers,
    });
    this.sendSeconds = new Histogram({
      name: 'herald_smtp_send_duration_seconds',
      help: 'Time from handing a message to the relay to its answer.',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.httpRequests = new Counter({
      name: 'herald_http_requests_total',
      help: 'HTTP requests answered, by method, route and status.',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.httpSeconds = new Histogram({
      name: 'herald_http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by method and route.',
      labelNames: ['method', 'route'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    new Gauge({
      name: 'herald_db_pool_connections',
      help: "The PostgreSQL pool's connections: open (total), idle, and callers waiting for one.",
      labelNames: ['state'],
      registers,
      collect() {
        this.set({ state: 'total' }, pool.totalCount);
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'waiting' }, pool.waitingCount);
      },
    });
    new Gauge({
      name: 'herald_db_pool_max',
      help: "The PostgreSQL pool's size (DB_POOL_SIZE).",
      registers,
      collect() {
        this.set(config.database.poolSize);
      },
    });
    const depths = async () => this.queueDepths();
    new Gauge({
      name: 'herald_queue_jobs',
      help: 'Jobs in each queue by state (the same in every process: aggregate with max).',
      labelNames: ['queue', 'state'],
      aggregator: 'max',
      registers,
      async collect() {
        this.reset();
        for (const [queue, counts] of await depths()) {
          for (const state of QUEUE_STATES) this.set({ queue, state }, counts[state] ?? 0);
        }
      },
    });
  }

  message(source: MessageSource, outcome: MessageOutcome, count = 1): void {
    if (count > 0) this.messages.inc({ source, outcome }, count);
  }

  /** Starts timing one SMTP transaction; call the answer when the relay has answered. */
  startSend(): () => void {
    return this.sendSeconds.startTimer();
  }

  http(method: string, route: string, status: number, seconds: number): void {
    this.httpRequests.inc({ method, route, status: String(status) });
    this.httpSeconds.observe({ method, route }, seconds);
  }

  /** Adds another process's metrics to this one's scrape (npm start's worker child). */
  addSource(source: MetricsSource): void {
    this.sources.push(source);
  }

  /** This process's metrics, in prom-client's JSON form (what a parent process asks a child). */
  async json(): Promise<MetricObjectWithValues<MetricValue<string>>[]> {
    return this.registry.getMetricsAsJSON();
  }

  /** The Prometheus text exposition of this process and every added source. */
  async render(): Promise<{ contentType: string; body: string }> {
    if (this.sources.length === 0) {
      return { contentType: this.registry.contentType, body: await this.registry.metrics() };
    }
    const others = await Promise.all(this.sources.map((source) => source().catch(() => undefined)));
    const all = [await this.json(), ...others.filter((metrics) => metrics !== undefined)];
    const merged = AggregatorRegistry.aggregate(all);
    return { contentType: merged.contentType, body: await merged.metrics() };
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all((this.queues ?? []).map((queue) => queue.close().catch(() => undefined)));
    this.queueConnection?.disconnect();
  }

  /** Redis: a connection of the scrape's own; PostgreSQL: the process's queue connection. */
  private queueOptions(): Pick<QueueOptions, 'connection' | 'prefix'> {
    if (!this.config.redis) return queueConnection(this.config);
    // Fails fast while Redis is away: a scrape then goes without depths rather than waiting.
    this.queueConnection = createRedisClient(this.config.redis, 'producer', { lazyConnect: true });
    this.queueConnection.on('error', () => undefined);
    return {
      connection: this.queueConnection,
      prefix: hashTaggedPrefix(this.config.queuePrefix),
    };
  }

  private async queueDepths(): Promise<[string, Record<string, number>][]> {
    if (!this.queues) {
      const options = this.queueOptions();
      this.queues = Object.values(QUEUES).map((name) => {
        const queue = new Queue(name, options);
        // Redis away is the readiness probe's to report; a scrape just goes without depths.
        queue.on('error', () => undefined);
        return queue;
      });
    }
    const connection = this.queueConnection;
    const queues = this.queues;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<[]>(
      (resolve) => (timer = setTimeout(() => resolve([]), QUEUE_COUNT_MS)),
    );
    const counted = (async (): Promise<[string, Record<string, number>][]> => {
      if (connection?.status === 'wait') await connection.connect();
      return Promise.all(
        queues.map(
          async (queue) =>
            [queue.name, await queue.getJobCounts(...QUEUE_STATES)] as [
              string,
              Record<string, number>,
            ],
        ),
      );
    })().catch(() => [] as []);
    try {
      return await Promise.race([counted, late]);
    } finally {
      clearTimeout(timer);
    }
  }
}

@Global()
@Module({ providers: [HeraldMetrics], exports: [HeraldMetrics] })
export class MetricsModule {}
