import type { MessageRef } from './message-ref';

/** What a report says happened to one message. */
export type FeedbackKind = 'hard_bounce' | 'soft_bounce' | 'complaint' | 'unsubscribe';

/** Where it came from; with the event key, it makes a report recognisable when repeated. */
export type FeedbackSource =
  'dsn' | 'arf' | 'mailto' | 'link' | 'preferences' | 'ses' | 'postmark' | 'sendgrid' | 'mailgun';

export interface FeedbackReport {
  source: FeedbackSource;
  /** Unique per source: a provider's event id, or a digest of the report. Never an address. */
  eventKey: string;
  kind: FeedbackKind;
  message: MessageRef;
  /** An enhanced status code (`5.1.1`) when the report has one. */
  statusCode?: string;
  /**
   * The address the report names, when it was matched by something other than a signed
   * token (a provider's Message-ID): it must be the message's recipient, or nothing is done.
   */
  recipient?: string;
}

/**
 * `applied`: counted and acted on; `repeated`: the same kind was already reported for the
 * message (recorded, nothing counted twice); `duplicate`: this very event was seen before;
 * `unmatched`: no such message, or its recipient is gone (erased).
 */
export type FeedbackOutcome = 'applied' | 'repeated' | 'duplicate' | 'unmatched';
