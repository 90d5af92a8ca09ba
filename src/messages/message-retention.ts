import { Injectable } from '@nestjs/common';
import { PeriodicService } from '../platform/timing/periodic-task';
import { MessageLog } from './message-log';
import { MessagesRepository } from './messages.repository';
import {
  RETENTION_BATCH,
  RETENTION_BATCHES_PER_PASS,
  RETENTION_SWEEP_EVERY_MS,
} from './messages.settings';

/**
 * Deletes messages past MESSAGE_RETENTION_DAYS, in every worker process on a timer, in
 * bounded batches. Message ids are UUIDv7 (their first 48 bits are the creation time), so the
 * expired rows are a prefix of the primary key and of the events' (message_id, seq) key: no
 * index of their own, no scan of live rows. Any number of workers may sweep at once.
 */
@Injectable()
export class MessageRetention extends PeriodicService {
  constructor(
    private readonly log: MessageLog,
    private readonly messages: MessagesRepository,
  ) {
    super('message retention', RETENTION_SWEEP_EVERY_MS);
  }

  protected async pass(): Promise<void> {
    const deleted = await this.sweep();
    if (deleted > 0) this.logger.log(`deleted ${deleted} expired message(s)`);
  }

  /** One pass: batches until nothing expired is left (or the pass's bound). */
  async sweep(): Promise<number> {
    const boundary = firstIdOf(this.log.keptAfter());
    let total = 0;
    for (let batch = 0; batch < RETENTION_BATCHES_PER_PASS; batch++) {
      const { events, messages } = await this.messages.deleteExpired(boundary, RETENTION_BATCH);
      total += messages;
      if (events < RETENTION_BATCH && messages < RETENTION_BATCH) break;
    }
    return total;
  }
}

/** The smallest UUIDv7 of a millisecond: every id made before it sorts below. */
export function firstIdOf(time: Date): string {
  const hex = Math.max(0, time.getTime()).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-8000-000000000000`;
}
