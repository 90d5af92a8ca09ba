// Reads of campaigns for outbound events (CampaignEvents). pg text with $n parameters, run
// inside whichever transaction records the event.

/** $1 account, $2 campaign. */
export const CAMPAIGN_SUBJECT = `
  SELECT name, from_address FROM campaigns WHERE account_id = $1 AND id = $2::uuid`;

/** $1 account, $2 campaign. */
export const CAMPAIGN_EVENT_DATA = `
  SELECT id::text, name, status::text, paused_reason::text AS paused_reason
    FROM campaigns WHERE account_id = $1 AND id = $2::uuid`;
