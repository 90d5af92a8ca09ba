import { Injectable } from '@nestjs/common';
import pLimit from 'p-limit';
import { MailTransport } from '../platform/mail/mail-transport';

/**
 * The process's SMTP connections, shared by every delivery job, as two kinds of slot.
 *
 * A message is handed to the transport only when a connection is free for it (`run`), so the
 * moment a job decides to send (and checks its lease) is the moment its SMTP transaction
 * starts, never a queue of them.
 *
 * Its end, the moment the relay takes it, waits for one of as many "unrecorded" slots
 * (`unrecorded`), held until its outcome is committed. A worker that freezes or dies can
 * therefore leave at most this many messages whose fate is unknown, while its connections
 * already carry the next messages' envelopes and data during those commits.
 */
@Injectable()
export class SendSlots {
  private readonly connections: pLimit.Limit;
  private readonly unrecordedSlots: pLimit.Limit;

  constructor(transport: MailTransport) {
    this.connections = pLimit(transport.connections);
    this.unrecordedSlots = pLimit(transport.connections);
  }

  /** Runs `work` once a connection is free; it decides then whether to send at all. */
  run<T>(work: () => Promise<T>): Promise<T> {
    return this.connections(work);
  }

  /** Resolves once a message may end; call the answer when its outcome is committed. */
  unrecorded(): Promise<() => void> {
    return new Promise((granted) => {
      void this.unrecordedSlots(() => new Promise<void>((release) => granted(release)));
    });
  }
}
