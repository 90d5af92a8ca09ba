import type { SkipReason } from './recipient-outcome';

/**
 * Who a campaign mails: subscribers whose status is `subscribed` and whose address is not on
 * the suppression list. Everyone else in the audience is skipped and counted by reason.
 */
export const MAILABLE_STATUS = 'subscribed';

/**
 * The reason a subscriber is not mailed, or null when they are. Herald's own statuses count
 * as themselves; any other status a client set (`pending`, `cleaned`…) means "not opted in"
 * and counts as `other`, so the report does not pass it off as an unsubscribe. A subscribed person on the suppression list is `suppressed`.
 * SKIP_REASON_SQL is the same rule for the fan-out's snapshot.
 */
export function skipReasonOf(status: string, suppressed: boolean): SkipReason | null {
  if (status === MAILABLE_STATUS) return suppressed ? 'suppressed' : null;
  if (status === 'unsubscribed' || status === 'bounced' || status === 'complained') return status;
  return 'other';
}

/** skipReasonOf over `a.status` and `a.suppressed` (a boolean column) in SQL. */
export const SKIP_REASON_SQL = `(CASE
    WHEN a.status = 'subscribed' THEN CASE WHEN a.suppressed THEN 'suppressed' END
    WHEN a.status IN ('unsubscribed', 'bounced', 'complained') THEN a.status
    ELSE 'other' END)::skip_reason`;

/** Whether the address of subscriber `s` is on the suppression list, as a column of a read. */
export const SUPPRESSED_SQL = `EXISTS (SELECT 1 FROM suppressions x
                             WHERE x.account_id = s.account_id
                               AND x.email_normalized = s.email_normalized)`;
