import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { FeedbackOutcome, FeedbackReport } from '../message-refs/feedback-report';
import { MessageRef, messageKey } from '../message-refs/message-ref';
import { FeedbackService } from '../feedback/feedback.service';
import { VerpAddresses, VerpPurpose } from '../message-refs/verp-address';
import { InboundEvent, InboundStats } from './inbound-stats';
import { PARSER_OPTIONS, readReport } from './report-reader';

/** A recipient the SMTP server accepted: a valid token, or a plain mailbox at BOUNCE_DOMAIN. */
export interface AcceptedRecipient {
  address: string;
  token?: { purpose: VerpPurpose; ref: MessageRef };
}

/**
 * Turns one inbound message into feedback. Who it is about comes only from signed VERP
 * tokens: the recipient address (the return path a delivery report is sent to, or the
 * List-Unsubscribe mailbox), or, for a complaint sent to a feedback mailbox, the token
 * addresses in the complained-about message's own headers (its Return-Path, its
 * List-Unsubscribe). The text of a report is never trusted to name anyone.
 */
@Injectable()
export class InboundMailService {
  constructor(
    private readonly verp: VerpAddresses,
    private readonly feedback: FeedbackService,
    private readonly stats: InboundStats,
  ) {}

  async receive(raw: Buffer, recipients: AcceptedRecipient[]): Promise<void> {
    const eventId = createHash('sha256').update(raw).digest('base64url');
    const tokens = recipients.flatMap((r) => (r.token ? [r.token] : []));

    // Any mail to a List-Unsubscribe mailbox unsubscribes (RFC 2369 asks nothing of its body).
    for (const { ref } of tokens.filter((t) => t.purpose === 'unsubscribe')) {
      // Keyed by message: a second mail to the same mailbox is the same unsubscribe.
      await this.apply({
        source: 'mailto',
        eventKey: messageKey(ref),
        kind: 'unsubscribe',
        message: ref,
      });
    }
    const bounceRefs = tokens.filter((t) => t.purpose === 'bounce').map((t) => t.ref);
    if (bounceRefs.length === 0 && recipients.every((r) => r.token)) return;

    // Loaded on first use, so processes that take no mail never load the parser.
    const { simpleParser } = await import('mailparser');
    const mail = await simpleParser(raw, PARSER_OPTIONS);
    const report = readReport(mail);
    if (report.type === 'bounce') {
      if (bounceRefs.length === 0)
        return this.stats.count('ignored', 'bounce report to a plain mailbox');
      for (const ref of bounceRefs) {
        await this.apply({
          source: 'dsn',
          eventKey: `${eventId}:${messageKey(ref)}`,
          kind: report.hard ? 'hard_bounce' : 'soft_bounce',
          message: ref,
          statusCode: report.status,
        });
      }
      return;
    }
    if (report.type === 'complaint') {
      const refs = bounceRefs.length > 0 ? bounceRefs : this.tokensIn(report.originalHeaders);
      if (refs.length === 0) return this.stats.count('unmatched', 'complaint without a token');
      for (const ref of refs) {
        await this.apply({
          source: 'arf',
          eventKey: `${eventId}:${messageKey(ref)}`,
          kind: 'complaint',
          message: ref,
        });
      }
      return;
    }
    if (bounceRefs.length > 0 || recipients.some((r) => !r.token)) {
      this.stats.count('ignored', report.why);
    }
  }

  /** The messages named by valid token addresses in a header block, each once. */
  private tokensIn(headers: string): MessageRef[] {
    const found = new Map<string, MessageRef>();
    for (const address of this.verp.findIn(headers)) {
      const parsed = this.verp.parse(address);
      if (!parsed.valid) {
        if (parsed.problem === 'forged') this.stats.count('forged_token', 'in a complaint');
        continue;
      }
      found.set(messageKey(parsed.ref), parsed.ref);
    }
    return [...found.values()];
  }

  private async apply(report: FeedbackReport): Promise<void> {
    const outcome = await this.feedback.apply(report);
    this.stats.count(EVENT_OF[outcome] ?? report.kind);
  }
}

const EVENT_OF: Partial<Record<FeedbackOutcome, InboundEvent>> = {
  repeated: 'repeated',
  duplicate: 'repeated',
  unmatched: 'unmatched',
};
