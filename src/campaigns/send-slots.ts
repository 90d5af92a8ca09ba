import { Injectable } from '@nestjs/common';
import pLimit from 'p-limit';
import { MailTransport } from '../platform/mail/mail-transport';

/**
 * The process's SMTP connections as slots shared by every delivery job. A message is handed
 * to the transport only when a connection is free for it, so the moment a job decides to send
 * (and checks its lease) is the moment the SMTP transaction starts: a worker that freezes or
 * dies can have at most this many messages whose fate is unknown, never a queue of them.
 */
@Injectable()
export class SendSlots {
  private readonly limit: pLimit.Limit;

  constructor(transport: MailTransport) {
    this.limit = pLimit(transport.connections);
  }

  /** Runs `work` once a slot is free; it decides then whether to send at all. */
  run<T>(work: () => Promise<T>): Promise<T> {
    return this.limit(work);
  }
}
