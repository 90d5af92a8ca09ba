// Reads of subscribers for outbound event payloads (SubscriberEventSubjects). pg text with $n
// parameters: they run inside the transaction recording the event, of whichever kind.

/** $1 account, $2 subscriber ids. */
export const EMAILS_OF = `
  SELECT id::text, email FROM subscribers WHERE account_id = $1 AND id = ANY($2::uuid[])`;

/** Every column of a subscriber row, named as the Prisma model names them. */
const SUBSCRIBER_COLUMNS = `
  id, account_id AS "accountId", email, email_normalized AS "emailNormalized",
         first_name AS "firstName", last_name AS "lastName", phone, address1, address2, city,
         state, zip, country_code AS "countryCode", birthdate, gender,
         income_level AS "incomeLevel", membership_status AS "membershipStatus", status,
         timezone, interests, tags, custom_fields AS "customFields",
         social_media AS "socialMedia", imported_stats AS "importedStats",
         stat_sent AS "statSent", stat_delivered AS "statDelivered", stat_opens AS "statOpens",
         stat_clicks AS "statClicks", stat_hard_bounces AS "statHardBounces",
         stat_soft_bounces AS "statSoftBounces", stat_revenue_cents AS "statRevenueCents",
         last_sent_at AS "lastSentAt", last_open_at AS "lastOpenAt",
         last_click_at AS "lastClickAt", soft_bounce_streak AS "softBounceStreak",
         created_at AS "createdAt", updated_at AS "updatedAt"`;

/** $1 account, $2 subscriber id. */
export const SUBSCRIBER_ROW = `
  SELECT ${SUBSCRIBER_COLUMNS}
    FROM subscribers WHERE account_id = $1 AND id = $2::uuid`;

/** $1 account, $2 subscriber ids. */
export const SUBSCRIBER_ROWS = `
  SELECT ${SUBSCRIBER_COLUMNS}
    FROM subscribers WHERE account_id = $1 AND id = ANY($2::uuid[])`;

/** $1 account, $2 normalised address. */
export const ID_BY_EMAIL = `
  SELECT id::text FROM subscribers WHERE account_id = $1 AND email_normalized = $2`;
