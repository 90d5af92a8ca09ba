import type { SkipReason } from '../../generated/prisma/client';

/** Why a ledger row was skipped instead of sent (the skip_reason enum). */
export type { SkipReason };

/**
 * What the message log keeps of a message whose outcome is written (absent for rows that
 * never became a message: an erased recipient's).
 */
export interface LoggedMessage {
  to: string;
  subject: string | null;
  /** The Message-ID header. */
  messageId: string;
  /** The relay's reply, or why it could not be made. */
  reply?: string;
}

/** What became of one claimed recipient; `logged` is what the message log keeps of it. */
export type Outcome = (
  | { subscriberId: string; kind: 'delivered' }
  | {
      subscriberId: string;
      kind: 'failed';
      smtpCode?: number;
      hardBounce: boolean;
      /** Why it never reached the relay (see failReason); relay refusals keep only the code. */
      reason?: string;
    }
  /** A 4xx or connection failure: stays claimed until the attempt ends, then pending again. */
  | { subscriberId: string; kind: 'deferred'; smtpCode?: number }
  /** Gone or no longer mailable since the snapshot: never sent. */
  | { subscriberId: string; kind: 'skipped'; reason: SkipReason }
) & { logged?: LoggedMessage };

/** An outcome that ends the recipient's row (everything but a deferral). */
export type FinalOutcome = Exclude<Outcome, { kind: 'deferred' }>;
