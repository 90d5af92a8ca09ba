import { KeyObject, verify } from 'node:crypto';
import {
  isRecord,
  ProviderEvent,
  statusCode,
  text,
  UnverifiedNotification,
} from './provider-event';

/** An SNS message as posted to an HTTPS subscription (its fields are all strings). */
export interface SnsMessage {
  Type: string;
  MessageId: string;
  TopicArn: string;
  Message: string;
  Timestamp: string;
  SignatureVersion: string;
  Signature: string;
  SigningCertURL: string;
  Subject?: string;
  Token?: string;
  SubscribeURL?: string;
}

const REQUIRED = [
  'Type',
  'MessageId',
  'TopicArn',
  'Message',
  'Timestamp',
  'SignatureVersion',
  'Signature',
  'SigningCertURL',
] as const;

/** The body SNS posts (as text/plain) read as its message; anything else fails verification. */
export function parseSnsMessage(body: unknown): SnsMessage {
  let parsed: unknown;
  try {
    parsed = typeof body === 'string' ? JSON.parse(body) : body;
  } catch {
    throw new UnverifiedNotification('not an SNS message');
  }
  if (!isRecord(parsed) || !REQUIRED.every((field) => typeof parsed[field] === 'string')) {
    throw new UnverifiedNotification('not an SNS message');
  }
  for (const optional of ['Subject', 'Token', 'SubscribeURL'] as const) {
    if (parsed[optional] !== undefined && typeof parsed[optional] !== 'string') {
      throw new UnverifiedNotification('not an SNS message');
    }
  }
  return parsed as unknown as SnsMessage;
}

/**
 * The string SNS signs: selected fields as `name\nvalue\n`, in this order, per message type
 * (AWS: "Verifying the signatures of Amazon SNS messages").
 */
export function snsStringToSign(message: SnsMessage): string {
  const fields =
    message.Type === 'Notification'
      ? ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type']
      : ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];
  return fields
    .filter((field) => message[field as keyof SnsMessage] !== undefined)
    .map((field) => `${field}\n${message[field as keyof SnsMessage]}\n`)
    .join('');
}

/** SignatureVersion 1 is RSA with SHA-1, 2 is RSA with SHA-256. */
export function verifySnsSignature(message: SnsMessage, key: KeyObject): void {
  const algorithm = { '1': 'RSA-SHA1', '2': 'RSA-SHA256' }[message.SignatureVersion];
  if (!algorithm) throw new UnverifiedNotification('unknown SNS SignatureVersion');
  const valid = verify(
    algorithm,
    Buffer.from(snsStringToSign(message), 'utf8'),
    key,
    Buffer.from(message.Signature, 'base64'),
  );
  if (!valid) throw new UnverifiedNotification('SNS signature does not verify');
}

/**
 * Bounces (Permanent: hard, Transient: soft; Undetermined says nothing) and complaints of an
 * SES notification, whether from notification settings (`notificationType`) or an event
 * destination (`eventType`). One event per recipient, keyed by the SNS MessageId.
 */
export function sesEvents(message: SnsMessage): ProviderEvent[] {
  let body: unknown;
  try {
    body = JSON.parse(message.Message);
  } catch {
    return [];
  }
  if (!isRecord(body)) return [];
  const type = body.notificationType ?? body.eventType;
  const mail = isRecord(body.mail) ? body.mail : {};
  const common = isRecord(mail.commonHeaders) ? mail.commonHeaders : {};
  const messageId = text(common.messageId);
  const each = (
    list: unknown,
    make: (item: Record<string, unknown>) => ProviderEvent | undefined,
  ) =>
    (Array.isArray(list) ? list : []).flatMap((item: unknown, index) => {
      const event = isRecord(item) ? make(item) : undefined;
      return event ? [{ ...event, eventId: `${message.MessageId}:${index}` }] : [];
    });
  if (type === 'Bounce' && isRecord(body.bounce)) {
    const kind =
      body.bounce.bounceType === 'Permanent'
        ? 'hard_bounce'
        : body.bounce.bounceType === 'Transient'
          ? 'soft_bounce'
          : undefined;
    if (!kind) return [];
    return each(body.bounce.bouncedRecipients, (item) => {
      const recipient = text(item.emailAddress);
      return recipient === undefined
        ? undefined
        : {
            eventId: '',
            kind,
            recipient,
            messageId,
            statusCode: statusCode(item.status),
          };
    });
  }
  if (type === 'Complaint' && isRecord(body.complaint)) {
    return each(body.complaint.complainedRecipients, (item) => {
      const recipient = text(item.emailAddress);
      return recipient === undefined
        ? undefined
        : { eventId: '', kind: 'complaint', recipient, messageId };
    });
  }
  return [];
}
