import { ROW_COLUMNS } from './subscribers.sql';

// Reads of subscribers for outbound event payloads (SubscriberEventSubjects). pg text with $n
// parameters: they run inside the transaction recording the event, of whichever kind.

/** $1 account, $2 subscriber ids. */
export const EMAILS_OF = `
  SELECT id::text, email FROM subscribers WHERE account_id = $1 AND id = ANY($2::uuid[])`;

/** $1 account, $2 subscriber id. */
export const SUBSCRIBER_ROW = `
  SELECT ${ROW_COLUMNS}
    FROM subscribers WHERE account_id = $1 AND id = $2::uuid`;

/** $1 account, $2 subscriber ids. */
export const SUBSCRIBER_ROWS = `
  SELECT ${ROW_COLUMNS}
    FROM subscribers WHERE account_id = $1 AND id = ANY($2::uuid[])`;

/** $1 account, $2 normalised address. */
export const ID_BY_EMAIL = `
  SELECT id::text FROM subscribers WHERE account_id = $1 AND email_normalized = $2`;
