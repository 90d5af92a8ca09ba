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
import { reportStoreError } from '../platform/logging/store-outage-log';
import { CONFIG } from '../platform/config/config.module';
import {
  WEBHOOK_BATCHES_PER_CLAIM,
  WEBHOOK_CLAIM_BATCH,
  WEBHOOK_CLAIM_LEASE_MS,
  WEBHOOK_CONCURRENCY,
  WEBHOOK_CONCURRENCY_WHILE_SENDING,
  WEBHOOK_TICK_WHILE_SENDING_MS,
  WEBHOOK_POLL_MS,
  WEBHOOK_RESULT_BATCH,
  WEBHOOK_RESULT_DELAY_MS,
  WEBHOOK_RESULT_DELAY_WHILE_SENDING_MS,
  WEBHOOK_RETENTION_DAYS,
  WEBHOOK_SCHEDULE_MS,
} from './webhooks.settings';
import { PeriodicTask } from '../platform/timing/periodic-task';
import { OutcomeBuffer } from './outcome-buffer';
import {
  ClaimedDelivery,
  DeliveryResult,
  FirstDelivery,
  WebhookDeliveriesRepository,
} from './webhook-deliveries.repository';
import type { AccountId } from '../platform/database/account-id';
import { BatchedEvent, withAddress } from './webhook-event-batch';
import {
  BatchEndpoint,
  ClaimedBatch,
  WebhookEventBatchesRepository,
} from './webhook-event-batches.repository';
import { WebhookPublisher } from './webhook-publisher';
import { WebhookSecretBox } from './webhook-secret';
import { WebhookSender } from './webhook-sender';

/** How often the dispatcher looks whether campaign mail is being delivered. */
const PACE_EVERY_MS = 1_000;
/** An event's first attempt at one endpoint, from a claimed batch. */
interface FirstAttempt {
  batch: ClaimedBatch;
  event: BatchedEvent;
  deliveryId: string;
  endpoint: BatchEndpoint;
  secret: string;
}

/** How often each process prunes old finished deliveries. */
const PRUNE_EVERY_MS = 3600_000;
const PRUNE_BATCH = 5_000;

/**
 * Makes webhook deliveries, in every worker process, for every account: first attempts from
 * the batches of new events (claimed under a lease it renews while it works through them), and
 * later attempts of due delivery rows, both claimed with SKIP LOCKED so processes never share
 * one. Keeps up to WEBHOOK_CONCURRENCY requests in flight and writes results in small bulk
 * batches: a first attempt writes its delivery row, a later one updates it. New events are
 * attempted at once (the publisher in this process nudges it; others are seen within
 * WEBHOOK_POLL_MS), then on the Standard Webhooks schedule until a 2xx or the schedule runs
 * out. PostgreSQL holds every event and its next attempt, so nothing is lost with a process or
 * with Redis.
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
  private readonly pruner = new PeriodicTask(
    'pruning webhook deliveries',
    PRUNE_EVERY_MS,
    () => this.deliveries.pruneFinishedAcrossAccounts(WEBHOOK_RETENTION_DAYS, PRUNE_BATCH),
    this.logger,
    'warn',
  );
  private readonly pacer = new PeriodicTask(
    'pacing webhooks',
    PACE_EVERY_MS,
    () => this.pace(),
    this.logger,
  );
  /** Requests kept in flight now: fewer while campaign mail is being delivered. */
  private window = WEBHOOK_CONCURRENCY;
  private sending = false;
  private readonly onPublished = () => this.wake?.();
  /** First attempts of the claimed batches, not started yet. */
  private ready: FirstAttempt[] = [];
  /** Claimed batches with attempts not finished, and how many: their lease is renewed. */
  private readonly held = new Map<string, number>();
  private readonly renewer = new PeriodicTask(
    'renewing webhook batch claims',
    WEBHOOK_CLAIM_LEASE_MS / 3,
    () => this.batches.renew([...this.held.keys()]),
    this.logger,
    'warn',
  );

  constructor(
    @Inject(CONFIG) config: HeraldConfig,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly batches: WebhookEventBatchesRepository,
    private readonly sender: WebhookSender,
    private readonly publisher: WebhookPublisher,
    @InjectQueue(QUEUES.campaignDelivery) private readonly campaignDeliveries: Queue,
  ) {
    // Its connection's errors (Redis away) go to the outage log like every other queue's.
    campaignDeliveries.on('error', (error) =>
      reportStoreError('the webhooks’ delivery queue', error),
    );
    this.secrets = new WebhookSecretBox(config.secret);
    this.results = new OutcomeBuffer((batch) => this.write(batch), {
      maxBatch: WEBHOOK_RESULT_BATCH,
      // While mail goes out, a write per few results would cost the send more than the
      // attempts themselves: fewer, larger writes (the log lags by a second).
      maxDelayMs: () =>
        this.sending ? WEBHOOK_RESULT_DELAY_WHILE_SENDING_MS : WEBHOOK_RESULT_DELAY_MS,
    });
  }

  onApplicationBootstrap(): void {
    this.running = true;
    this.publisher.signal.on('published', this.onPublished);
    this.loop = this.run();
    this.pruner.start();
    this.pacer.start();
    this.renewer.start();
  }

  /**
   * Mail first: while any worker delivers campaign mail, webhooks go at a reduced pace (a few
   * requests per WEBHOOK_TICK_WHILE_SENDING_MS, tens per second), so a
   * large send is not slowed by the events it causes; they catch up as soon as it is done.
   * (The deliveries are durable and their order is not promised, so delaying them is safe.)
   */
  private async pace(): Promise<void> {
    try {
      this.sending = (await this.campaignDeliveries.getActiveCount()) > 0;
    } catch {
      this.sending = false; // Redis away: nothing is being sent through it either
    }
    this.window = this.sending ? WEBHOOK_CONCURRENCY_WHILE_SENDING : WEBHOOK_CONCURRENCY;
  }

  async onModuleDestroy(): Promise<void> {
    this.running = false;
    this.publisher.signal.off('published', this.onPublished);
    // Not waiting for a pace pass: it asks Redis, which may be away.
    void this.pacer.stop();
    await Promise.all([this.pruner.stop(), this.renewer.stop()]);
    this.wake?.();
    this.slotFreed?.();
    await this.loop;
    await this.results.close().catch(() => undefined);
    // What is left of the batches (not attempted, or in flight) goes to another process now
    // rather than when the lease runs out.
    this.ready = [];
    await this.batches.release([...this.held.keys()]).catch(() => undefined);
  }

  private async run(): Promise<void> {
    while (this.running) {
      let started = 0;
      if (this.ready.length === 0 && this.room() >= this.claimAtLeast()) {
        try {
          const due = await this.deliveries.claimDueAcrossAccounts(Math.max(0, this.room()));
          for (const delivery of due) this.start(() => this.retry(delivery));
          started += due.length;
          // A batch whose endpoints are all disabled or gone starts nothing, yet is progress.
          if (this.room() >= this.claimAtLeast()) started += await this.claimBatches();
        } catch (error) {
          this.logger.warn(`claiming webhook deliveries failed: ${String(error)}`);
        }
      }
      while (this.ready.length > 0 && this.room() > 0) {
        const attempt = this.ready.shift()!;
        this.start(() => this.first(attempt));
        started++;
      }
      if (!this.running) break;
      // The window may have changed during the awaits above (pace): read it afresh, and wait
      // for a slot only while some attempt is in flight to free one.
      const full = this.ready.length > 0 ? this.room() <= 0 : this.room() < this.claimAtLeast();
      if (this.sending && started > 0) {
        // Mail first: a few deliveries per tick while campaign mail is being delivered.
        await new Promise((resolve) => setTimeout(resolve, WEBHOOK_TICK_WHILE_SENDING_MS));
      } else if (full && this.inFlight > 0) {
        await new Promise<void>((resolve) => (this.slotFreed = resolve));
      } else if (started === 0) {
        await this.idle();
      }
    }
  }

  /** Requests that may start now. */
  private room(): number {
    return this.window - this.inFlight;
  }

  /** Claims go in batches (half the window at least), not one row per freed slot. */
  private claimAtLeast(): number {
    return Math.min(WEBHOOK_CLAIM_BATCH, Math.max(1, Math.ceil(this.window / 2)));
  }

  private start(attempt: () => Promise<void>): void {
    this.inFlight++;
    void attempt().finally(() => {
      this.inFlight--;
      this.slotFreed?.();
    });
  }

  /**
   * Claims batches of new events and queues their first attempts; returns how many it claimed.
   * An endpoint deleted since
   * gets nothing; a disabled one gets its delivery rows unattempted, waiting as its other
   * pending deliveries do.
   */
  private async claimBatches(): Promise<number> {
    const claimed = await this.batches.claimAcrossAccounts(WEBHOOK_BATCHES_PER_CLAIM);
    if (claimed.length === 0) return 0;
    const endpointIds = new Set<string>();
    for (const batch of claimed) {
      for (const event of batch.events) {
        for (const [, endpointId] of event.deliveries) endpointIds.add(endpointId);
      }
    }
    const endpoints = await this.batches.endpointsAcrossAccounts([...endpointIds]);
    const addresses = await this.addressesFor(claimed);
    const secrets = new Map<string, string | Error>();
    const empty: string[] = [];
    for (const batch of claimed) {
      let queued = 0;
      let settled = 0;
      for (const stored of batch.events) {
        let event = stored;
        let gone = false;
        if (stored.email_of) {
          const email = addresses.get(`${batch.accountId}/${stored.email_of}`);
          if (email === undefined) gone = true;
          else event = { ...stored, payload: withAddress(stored.payload, email) };
        }
        for (const [deliveryId, endpointId] of event.deliveries) {
          if (!batch.pending.has(deliveryId)) continue; // written before this claim
          const endpoint = endpoints.get(endpointId);
          const first = firstDelivery(batch, event);
          if (gone) {
            // The subscriber is gone (deleted or erased): an event about them carries nothing.
            this.results.add(notAttempted(deliveryId, endpointId, { ...first, void: true }));
            settled++;
          } else if (!endpoint?.enabled) {
            // (No row is written for an endpoint that is gone: see INSERT_ATTEMPTED.)
            this.results.add(notAttempted(deliveryId, endpointId, first));
            settled++;
          } else {
            const secret = secrets.get(endpointId) ?? this.openSecret(endpoint);
            secrets.set(endpointId, secret);
            if (secret instanceof Error) {
              const result = failed({ id: deliveryId, endpointId }, secret.message, 1);
              this.results.add({ ...result, first: { ...first, attempts: 1 } });
              settled++;
              continue;
            }
            this.ready.push({ batch, event, deliveryId, endpoint, secret });
            queued++;
          }
        }
      }
      if (queued > 0) this.held.set(batch.id, queued);
      else if (settled === 0) empty.push(batch.id);
    }
    await this.batches.deleteIfDone(empty);
    return claimed.length;
  }

  /** The addresses the claimed batches' events fill in, keyed `account/subscriber`. */
  private async addressesFor(claimed: ClaimedBatch[]): Promise<Map<string, string>> {
    const wanted = new Map<AccountId, Set<string>>();
    for (const batch of claimed) {
      for (const event of batch.events) {
        if (!event.email_of) continue;
        if (!event.deliveries.some(([id]) => batch.pending.has(id))) continue;
        const ids = wanted.get(batch.accountId) ?? new Set<string>();
        wanted.set(batch.accountId, ids.add(event.email_of));
      }
    }
    const addresses = new Map<string, string>();
    for (const [accountId, ids] of wanted) {
      for (const [id, email] of await this.publisher.addressesOf(accountId, [...ids])) {
        addresses.set(`${accountId}/${id}`, email);
      }
    }
    return addresses;
  }

  private openSecret(endpoint: BatchEndpoint): string | Error {
    try {
      return this.secrets.open(endpoint.secretSealed, endpoint.id);
    } catch (error) {
      return new Error(`not sent: ${String(error)}`);
    }
  }

  private async first(attempt: FirstAttempt): Promise<void> {
    const { batch, event, deliveryId, endpoint } = attempt;
    const result = await this.attempt(
      { id: deliveryId, endpointId: endpoint.id, url: endpoint.url, eventId: event.event_id },
      event.payload,
      attempt.secret,
      1,
    );
    this.results.add({ ...result, first: firstDelivery(batch, event, 1) });
    const left = (this.held.get(batch.id) ?? 1) - 1;
    if (left > 0) this.held.set(batch.id, left);
    else this.held.delete(batch.id);
  }

  private async retry(delivery: ClaimedDelivery): Promise<void> {
    let secret: string;
    try {
      secret = this.secrets.open(delivery.secretSealed, delivery.endpointId);
    } catch (error) {
      this.results.add(failed(delivery, `not sent: ${String(error)}`, delivery.attempts));
      return;
    }
    this.results.add(await this.attempt(delivery, delivery.payload, secret, delivery.attempts));
  }

  /** One attempt, the `made`-th; what it came to, and when the next one is due if it failed. */
  private async attempt(
    delivery: { id: string; endpointId: string; url: string; eventId: string },
    payload: string,
    secret: string,
    made: number,
  ): Promise<DeliveryResult> {
    try {
      const attempt = await this.sender.attempt({
        url: delivery.url,
        eventId: delivery.eventId,
        payload,
        secret,
      });
      return {
        id: delivery.id,
        endpointId: delivery.endpointId,
        ...attempt,
        nextAttemptAt: attempt.ok ? null : nextAttempt(made),
      };
    } catch (error) {
      return failed(delivery, `not sent: ${String(error)}`, made);
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
}

function failed(
  delivery: { id: string; endpointId: string },
  error: string,
  made: number,
): DeliveryResult {
  return {
    id: delivery.id,
    endpointId: delivery.endpointId,
    ok: false,
    status: null,
    latencyMs: 0,
    error: error.slice(0, 300),
    nextAttemptAt: nextAttempt(made),
  };
}

function firstDelivery(batch: ClaimedBatch, event: BatchedEvent, attempts = 0): FirstDelivery {
  return {
    batchId: batch.id,
    accountId: batch.accountId,
    eventId: event.event_id,
    type: event.type,
    payload: event.payload,
    subscriberId: event.subscriber_id,
    recipientHash: event.recipient_hash,
    createdAt: batch.createdAt,
    attempts,
  };
}

/** A delivery row written without an attempt: due at once, for when its endpoint is enabled. */
function notAttempted(id: string, endpointId: string, first: FirstDelivery): DeliveryResult {
  return {
    id,
    endpointId,
    ok: false,
    status: null,
    latencyMs: 0,
    error: null,
    nextAttemptAt: new Date(),
    first,
  };
}

/** When attempt number `made` + 1 is due, or null when `made` attempts were the last. */
export function nextAttempt(made: number, now = Date.now()): Date | null {
  const delay = WEBHOOK_SCHEDULE_MS[made];
  return delay === undefined ? null : new Date(now + delay);
}
