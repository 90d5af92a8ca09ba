/** Why an address is on the suppression list. Only `manual` can be given through the API. */
export const SUPPRESSION_REASONS = ['manual', 'hard_bounce', 'complaint', 'unsubscribe'] as const;

export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];

/**
 * The subscriber status Herald sets together with an entry of this reason, so that removing
 * the entry (the one way back) also undoes the status it caused. A manual entry leaves the
 * status alone: campaigns skip the address as `suppressed`.
 */
export const STATUS_OF_REASON: Readonly<Record<SuppressionReason, string | undefined>> = {
  manual: undefined,
  hard_bounce: 'bounced',
  complaint: 'complained',
  unsubscribe: 'unsubscribed',
};

/**
 * Soft bounces in a row (no open or click between them) after which an address counts as
 * hard-bounced: a mailbox full for three sends in a row is as good as gone.
 */
export const SOFT_BOUNCE_LIMIT = 3;
