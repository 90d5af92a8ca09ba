import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleDestroy,
} from '@nestjs/common';
import { HeraldConfig } from '../platform/config/config';
import { CONFIG } from '../platform/config/config.module';
import {
  WEBHOOK_CLAIM_BATCH,
  WEBHOOK_CONCURRENCY,
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
  private readonly onPublished = () => this.wake?.();

  constructor(
    @Inject(CONFIG) config: HeraldConfig,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly sender: WebhookSender,
    private readonly publisher: WebhookPublisher,
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
  }

  async onModuleDestroy(): Promise<void> {
    this.running = false;
    this.publisher.signal.off('published', this.onPublished);
    clearInterval(this.pruneTimer);
    this.wake?.();
    this.slotFreed?.();
    await this.loop;
    await this.results.close().catch(() => undefined);
  }

  private async run(): Promise<void> {
    while (this.running) {
      let claimed: ClaimedDelivery[] = [];
      try {
        const room = WEBHOOK_CONCURRENCY - this.inFlight;
        if (room > 0) claimed = await this.deliveries.claimDue(Math.min(room, WEBHOOK_CLAIM_BATCH));
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
      if (this.inFlight >= WEBHOOK_CONCURRENCY) {
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
