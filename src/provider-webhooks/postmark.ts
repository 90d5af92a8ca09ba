import { timingSafeEqual } from 'node:crypto';
import { isRecord, ProviderEvent, text, UnverifiedNotification } from './provider-event';

/** Postmark's webhooks authenticate with HTTP basic auth set in the webhook's URL. */
export function verifyPostmark(
  credentials: { user: string; password: string },
  authorization: string | undefined,
): void {
  const match = /^Basic +([A-Za-z0-9+/=]+)$/i.exec(authorization ?? '');
  if (!match) throw new UnverifiedNotification('Postmark basic auth missing');
  const given = Buffer.from(match[1], 'base64');
  const expected = Buffer.from(`${credentials.user}:${credentials.password}`, 'utf8');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new UnverifiedNotification('Postmark basic auth does not match');
  }
}

const HARD = new Set(['HardBounce', 'BadEmailAddress']);
const SOFT = new Set(['SoftBounce']);

/**
 * A bounce (HardBounce and BadEmailAddress hard, SoftBounce soft; delays, auto-replies and
 * the rest say nothing about the address) or a spam complaint. Postmark's MessageID is its
 * own, not Herald's Message-ID header, so these are matched by recipient.
 */
export function postmarkEvents(body: unknown): ProviderEvent[] {
  if (!isRecord(body)) return [];
  const recipient = text(body.Email);
  const id =
    typeof body.ID === 'number' || typeof body.ID === 'string' ? String(body.ID) : undefined;
  if (!recipient || !id) return [];
  // Postmark's IDs can exceed what a JSON number holds exactly: with its MessageID the
  // event id stays unique.
  const eventId = `${String(body.RecordType)}:${id}:${text(body.MessageID) ?? ''}`;
  if (body.RecordType === 'SpamComplaint') return [{ eventId, kind: 'complaint', recipient }];
  if (body.RecordType !== 'Bounce' || typeof body.Type !== 'string') return [];
  if (HARD.has(body.Type)) return [{ eventId, kind: 'hard_bounce', recipient }];
  if (SOFT.has(body.Type)) return [{ eventId, kind: 'soft_bounce', recipient }];
  return [];
}
