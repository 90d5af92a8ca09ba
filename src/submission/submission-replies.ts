/**
 * The replies of SMTP submission, each saying what to fix. A 4xx is only ever
 * for what may pass by itself (the client retries it); a 5xx for what retrying cannot change.
 */
export class SmtpReply extends Error {
  constructor(
    readonly responseCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'SmtpReply';
  }
}

export const replies = {
  tooManyConnections: () =>
    new SmtpReply(421, 'Too many connections from your address; close idle ones or retry later'),
  tooManyAuthFailures: (minutes: number) =>
    new SmtpReply(
      421,
      `Too many failed logins from your address; wait ${minutes} minutes, then log in with an API key holding transactional:send`,
    ),
  badCredentials: () =>
    new SmtpReply(
      535,
      'Authentication failed: the password must be an active Herald API key (sk_live_...); the username can be anything',
    ),
  missingScope: () =>
    new SmtpReply(
      535,
      'Authentication failed: this API key lacks the transactional:send scope; create a key that has it',
    ),
  tooManyRecipients: (most: number) =>
    new SmtpReply(
      452,
      `Too many recipients: at most ${most} per message; send the rest in another message`,
    ),
  badRecipient: () => new SmtpReply(553, 'Not a valid email address; correct the recipient'),
  suppressed: () =>
    new SmtpReply(
      550,
      'Recipient is on the suppression list and will not be mailed; remove it (DELETE /v1/suppressions/{email}) to mail it again',
    ),
  erased: () =>
    new SmtpReply(
      550,
      "Recipient's data was erased at their request; this address cannot be mailed",
    ),
  tooLarge: (bytes: number) =>
    new SmtpReply(
      552,
      `Message exceeds the ${bytes}-byte limit (SUBMISSION_MAX_BYTES); make it smaller`,
    ),
  badFrom: () =>
    new SmtpReply(
      550,
      'The From header is missing or not one valid address; give one From address',
    ),
  badIdempotencyKey: () =>
    new SmtpReply(550, 'The Idempotency-Key header must be one value of 1 to 255 characters'),
  unverifiedFrom: (detail: string) =>
    new SmtpReply(
      550,
      `The From address is not on a verified sender domain of this account (${detail}); verify the domain (POST /v1/domains) or send from a verified one`,
    ),
  refused: (detail: string) => new SmtpReply(550, `Message refused: ${detail}`),
  keyReused: () =>
    new SmtpReply(
      550,
      'This Idempotency-Key was already used for another message; give each message its own key',
    ),
  keyInProgress: () =>
    new SmtpReply(
      451,
      'The first message with this Idempotency-Key is still being taken; retry shortly',
    ),
  rateLimited: (seconds: number) =>
    new SmtpReply(451, `This API key's send rate limit is reached; retry in ${seconds} seconds`),
  unavailable: () =>
    new SmtpReply(
      451,
      'Herald cannot store the message right now (its database or Redis is unavailable); retry later, nothing was queued',
    ),
};
