import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  isRecord,
  ProviderEvent,
  statusCode,
  text,
  UnverifiedNotification,
} from './provider-event';
import { withinWindow } from './signature-window';

/**
 * Mailgun's webhook signature: HMAC-SHA256 under the webhook signing key of the timestamp
 * followed by the token, hex, in the body's `signature` object. Answers the signed token and
 * timestamp (the caller refuses a token seen before).
 */
export function verifyMailgun(
  signingKey: string,
  body: unknown,
  now = Date.now(),
): { token: string; timestamp: number } {
  const signature = isRecord(body) && isRecord(body.signature) ? body.signature : undefined;
  const timestamp = text(signature?.timestamp);
  const token = text(signature?.token);
  const given = text(signature?.signature);
  if (!timestamp || !token || !given || !/^[0-9a-f]{64}$/i.test(given)) {
    throw new UnverifiedNotification('Mailgun signature missing');
  }
  const expected = createHmac('sha256', signingKey).update(timestamp).update(token).digest();
  if (!timingSafeEqual(expected, Buffer.from(given, 'hex'))) {
    throw new UnverifiedNotification('Mailgun signature does not verify');
  }
  return { token, timestamp: withinWindow('Mailgun', timestamp, now) };
}

/** A `failed` event (permanent: hard, temporary: soft) or a `complained` one. */
export function mailgunEvents(body: unknown): ProviderEvent[] {
  const data = isRecord(body) && isRecord(body['event-data']) ? body['event-data'] : undefined;
  const eventId = text(data?.id);
  const recipient = text(data?.recipient);
  if (!data || !eventId || !recipient) return [];
  const message = isRecord(data.message) ? data.message : {};
  const headers = isRecord(message.headers) ? message.headers : {};
  const messageId = text(headers['message-id']);
  if (data.event === 'complained') return [{ eventId, kind: 'complaint', recipient, messageId }];
  if (data.event !== 'failed') return [];
  const status = isRecord(data['delivery-status']) ? data['delivery-status'] : {};
  const kind =
    data.severity === 'permanent'
      ? 'hard_bounce'
      : data.severity === 'temporary'
        ? 'soft_bounce'
        : undefined;
  if (!kind) return [];
  return [{ eventId, kind, recipient, messageId, statusCode: statusCode(status['enhanced-code']) }];
}
