import { createPublicKey, KeyObject, verify } from 'node:crypto';
import {
  isRecord,
  ProviderEvent,
  statusCode,
  text,
  UnverifiedNotification,
} from './provider-event';
import { withinWindow } from './signature-window';

export const SENDGRID_SIGNATURE = 'x-twilio-email-event-webhook-signature';
export const SENDGRID_TIMESTAMP = 'x-twilio-email-event-webhook-timestamp';

/** The public key as SendGrid shows it: base64 of the DER-encoded (SPKI) P-256 key. */
export function sendgridKey(base64: string): KeyObject {
  return createPublicKey({ key: Buffer.from(base64, 'base64'), format: 'der', type: 'spki' });
}

/**
 * SendGrid's signed event webhook: an ECDSA (P-256, SHA-256) signature, base64 DER, over the
 * timestamp header followed by the raw request body, exactly as received; the timestamp
 * must be within the window.
 */
export function verifySendgrid(
  key: KeyObject,
  headers: Record<string, string | string[] | undefined>,
  raw: Buffer,
  now = Date.now(),
): void {
  const signature = headers[SENDGRID_SIGNATURE];
  const timestamp = headers[SENDGRID_TIMESTAMP];
  if (typeof signature !== 'string' || typeof timestamp !== 'string') {
    throw new UnverifiedNotification('SendGrid signature headers missing');
  }
  const signed = Buffer.concat([Buffer.from(timestamp, 'utf8'), raw]);
  let valid: boolean;
  try {
    valid = verify('sha256', signed, { key, dsaEncoding: 'der' }, Buffer.from(signature, 'base64'));
  } catch {
    valid = false; // a signature that is not even DER
  }
  if (!valid) throw new UnverifiedNotification('SendGrid signature does not verify');
  withinWindow('SendGrid', timestamp, now);
}

/**
 * Bounces and spam reports of an event batch. `bounce` events of type `blocked` are a
 * temporary refusal (soft); `deferred` (a delay) and `dropped` (SendGrid's own suppression)
 * say nothing new about the address.
 */
export function sendgridEvents(body: unknown): ProviderEvent[] {
  if (!Array.isArray(body)) return [];
  return body.flatMap((event: unknown): ProviderEvent[] => {
    if (!isRecord(event)) return [];
    const eventId = text(event.sg_event_id);
    const recipient = text(event.email);
    if (!eventId || !recipient) return [];
    const messageId = text(event['smtp-id']);
    if (event.event === 'spamreport') {
      return [{ eventId, kind: 'complaint', recipient, messageId }];
    }
    if (event.event === 'bounce') {
      const kind = event.type === 'blocked' ? 'soft_bounce' : 'hard_bounce';
      return [{ eventId, kind, recipient, messageId, statusCode: statusCode(event.status) }];
    }
    return [];
  });
}
