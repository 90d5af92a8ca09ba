import type { SkipReason } from '../../generated/prisma/client';

/** Why a ledger row was skipped instead of sent (the skip_reason enum). */
export type { SkipReason };

/** What became of one claimed recipient. */
export type Outcome =
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
  | { subscriberId: string; kind: 'skipped'; reason: SkipReason };

/** An outcome that ends the recipient's row (everything but a deferral). */
export type FinalOutcome = Exclude<Outcome, { kind: 'deferred' }>;
