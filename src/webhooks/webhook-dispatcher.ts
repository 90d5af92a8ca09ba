import { InjectQueue } from '@nestjs/bullmq';
import { Queue } from 'bullmq';
import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleDestroy,
} from '@nestjs/common';
import { HeraldConfig } from '../platform/config/config';
import { QUEUES } from '../platform/queue/queue.module';
import { CONFIG } from '../platform/config/config.module';
import {
  WEBHOOK_CLAIM_BATCH,
  WEBHOOK_CONCURRENCY,
  WEBHOOK_CONCURRENCY_WHILE_SENDING,
  WEBHOOK_POLL_MS,
  WEBHOOK_RESULT_BATCH,
  WEBHOOK_RESULT_DELAY_MS,
  WEBHOOK_RETENTION_DAYS,
  WEBHOOK_SCHEDULE_MS,
} from '../platform/settings';
import { OutcomeBuffer } from './outcome-buffer';
import {
  ClaimedDelivery,
  DeliveryResult,
  WebhookDeliveriesRepository,
} from './webhook-deliveries.repository';
import { WebhookPublisher } from './webhook-publisher';
import { WebhookSecretBox } from './webhook-secret';
import { WebhookSender } from './webhook-sender';

/** How often the dispatcher looks whether campaign mail is being delivered. */
const PACE_EVERY_MS = 1_000;
/** How often each process prunes old finished deliveries. */
const PRUNE_EVERY_MS = 3600_000;
const PRUNE_BATCH = 5_000;

/**
 * Makes due webhook deliveries, in every worker process: claims due rows (any account) with
 * SKIP LOCKED so processes never share one, keeps up to WEBHOOK_CONCURRENCY requests in
 * flight, and writes results in small bulk batches. Deliveries are due at once when published
 * (the publisher in this process nudges it; others are seen within WEBHOOK_POLL_MS) and then
 * on the Standard Webhooks schedule until a 2xx or the schedule runs out. PostgreSQL holds
 * every delivery and its next attempt, so nothing is lost with a process or with Redis.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(WebhookDispatcher.name);
  private readonly secrets: WebhookSecretBox;
  private readonly results: OutcomeBuffer<DeliveryResult>;
  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private inFlight = 0;
  private slotFreed: (() => void) | undefined;
  private pruneTimer: NodeJS.Timeout | undefined;
  private paceTimer: NodeJS.Timeout | undefined;
  /** Requests kept in flight now: fewer while campaign mail is being delivered. */
  private window = WEBHOOK_CONCURRENCY;
  private readonly onPublished = () => this.wake?.();

  constructor(
    @Inject(CONFIG) config: HeraldConfig,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly sender: WebhookSender,
    private readonly publisher: WebhookPublisher,
    @InjectQueue(QUEUES.campaignDelivery) private readonly campaignDeliveries: Queue,
  ) {
    this.secrets = new WebhookSecretBox(config.secret);
    this.results = new OutcomeBuffer((batch) => this.write(batch), {
      maxBatch: WEBHOOK_RESULT_BATCH,
      maxDelayMs: WEBHOOK_RESULT_DELAY_MS,
    });
  }

  onApplicationBootstrap(): void {
    this.running = true;
    this.publisher.signal.on('published', this.onPublished);
    this.loop = this.run();
    this.pruneTimer = setInterval(() => void this.prune(), PRUNE_EVERY_MS);
    this.pruneTimer.unref();
    this.paceTimer = setInterval(() => void this.pace(), PACE_EVERY_MS);
    this.paceTimer.unref();
  }

  /**
   * Mail first: while any worker delivers campaign mail, webhooks go at a reduced pace, so a
   * large send is not slowed by the events it causes; they catch up as soon as it is done.
   * (The deliveries are durable and their order is not promised, so delaying them is safe.)
   */
  private async pace(): Promise<void> {
    try {
      const sending = (await this.campaignDeliveries.getActiveCount()) > 0;
      this.window = sending ? WEBHOOK_CONCURRENCY_WHILE_SENDING : WEBHOOK_CONCURRENCY;
    } catch {
      this.window = WEBHOOK_CONCURRENCY; // Redis away: nothing is being sent through it either
    }
  }

  async onModuleDestroy(): Promise<void> {
    this.running = false;
    this.publisher.signal.off('published', this.onPublished);
    clearInterval(this.pruneTimer);
    clearInterval(this.paceTimer);
    this.wake?.();
    this.slotFreed?.();
    await this.loop;
    await this.results.close().catch(() => undefined);
  }

  private async run(): Promise<void> {
    while (this.running) {
      let claimed: ClaimedDelivery[] = [];
      // Claims go in batches (half the window at least), not one row per freed slot.
      const room = this.window - this.inFlight;
      const batch = Math.min(WEBHOOK_CLAIM_BATCH, Math.max(1, Math.ceil(this.window / 2)));
      try {
        if (room >= batch) claimed = await this.deliveries.claimDue(room);
      } catch (error) {
        this.logger.warn(`claiming webhook deliveries failed: ${String(error)}`);
      }
      for (const delivery of claimed) {
        this.inFlight++;
        void this.deliver(delivery).finally(() => {
          this.inFlight--;
          this.slotFreed?.();
        });
      }
      if (!this.running) break;
      if (this.window - this.inFlight < batch) {
        await new Promise<void>((resolve) => (this.slotFreed = resolve));
      } else if (claimed.length === 0) {
        await this.idle();
      }
    }
  }

  /** Waits for the poll interval, a nudge from the publisher, or a freed slot. */
  private idle(): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, WEBHOOK_POLL_MS);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    }).finally(() => (this.wake = undefined));
  }

  private async deliver(delivery: ClaimedDelivery): Promise<void> {
    let result: DeliveryResult;
    try {
      const secret = this.secrets.open(delivery.secretSealed, delivery.endpointId);
      const attempt = await this.sender.attempt({
        url: delivery.url,
        eventId: delivery.eventId,
        payload: delivery.payload,
        secret,
      });
      result = {
        id: delivery.id,
        endpointId: delivery.endpointId,
        ...attempt,
        nextAttemptAt: attempt.ok ? null : nextAttempt(delivery.attempts),
      };
    } catch (error) {
      result = {
        id: delivery.id,
        endpointId: delivery.endpointId,
        ok: false,
        status: null,
        latencyMs: 0,
        error: `not sent: ${String(error)}`.slice(0, 300),
        nextAttemptAt: nextAttempt(delivery.attempts),
      };
    }
    this.results.add(result);
  }

  private async write(batch: DeliveryResult[]): Promise<void> {
    try {
      const disabled = await this.deliveries.writeResults(batch);
      for (const id of disabled)
        this.logger.warn(`webhook endpoint ${id} disabled: failing for days`);
    } catch (error) {
      // The claims' lease runs out and those deliveries are attempted again: at least once.
      this.logger.error(`writing webhook results failed: ${String(error)}`);
    }
  }

  private async prune(): Promise<void> {
    try {
      await this.deliveries.pruneFinished(WEBHOOK_RETENTION_DAYS, PRUNE_BATCH);
    } catch (error) {
      this.logger.warn(`pruning webhook deliveries failed: ${String(error)}`);
    }
  }
}

/** When attempt number `made` + 1 is due, or null when `made` attempts were the last. */
export function nextAttempt(made: number, now = Date.now()): Date | null {
  const delay = WEBHOOK_SCHEDULE_MS[made];
  return delay === undefined ? null : new Date(now + delay);
}
