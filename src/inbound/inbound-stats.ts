import { Injectable, Logger } from '@nestjs/common';

/** What became of inbound mail; counted per process, logged as it happens, never an address. */
export type InboundEvent =
  | 'hard_bounce'
  | 'soft_bounce'
  | 'complaint'
  | 'unsubscribe'
  /** A report about a message Herald already heard about, or the same report again. */
  | 'repeated'
  /** A valid token for a message Herald no longer knows (erased recipient, unsent row). */
  | 'unmatched'
  /** An address with a token shape whose signature does not hold: refused or dropped. */
  | 'forged_token'
  /** RCPT TO a domain other than BOUNCE_DOMAIN: refused (Herald is no relay). */
  | 'foreign_recipient'
  /** Mail to a token address that is neither report nor unsubscribe (auto-replies). */
  | 'ignored'
  | 'too_large'
  | 'rate_limited';

@Injectable()
export class InboundStats {
  private readonly logger = new Logger('InboundMail');
  private readonly counts = new Map<InboundEvent, number>();

  count(event: InboundEvent, detail?: string): void {
    this.counts.set(event, (this.counts.get(event) ?? 0) + 1);
    this.logger.log({ event, detail, total: this.counts.get(event) }, 'inbound mail');
  }

  snapshot(): Partial<Record<InboundEvent, number>> {
    return Object.fromEntries(this.counts);
  }
}
