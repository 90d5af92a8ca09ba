import { headerValue, readRawMessage, writeRawMessage } from '../platform/mail/raw-headers';
import { parseMailbox } from '../platform/validation/mailbox';
import { replies } from './submission-replies';

/**
 * Headers that never leave as the client wrote them: Bcc (its recipients are in the envelope;
 * the header would tell every recipient who else got the message), the Idempotency-Key meant
 * for Herald, the Return-Path a receiving server writes, and Herald's own X-Herald-* headers,
 * which feedback handling reads and a client must not forge.
 */
function isRemoved(name: string): boolean {
  return (
    name === 'bcc' ||
    name === 'resent-bcc' ||
    name === 'idempotency-key' ||
    name === 'return-path' ||
    name.startsWith('x-herald-')
  );
}

const MAX_KEY_LENGTH = 255;
const MAX_SUBJECT_LENGTH = 998;

export interface SubmittedMessage {
  /** The From header as written (a mailbox: `Name <address>` or an address). */
  from: string;
  subject: string;
  idempotencyKey: string | undefined;
  /** The message to send: the client's bytes without the removed headers. */
  mime: Buffer;
}

/** Reads what Herald needs from a submitted message; an SmtpReply when it cannot be sent. */
export function readSubmittedMessage(data: Buffer): SubmittedMessage {
  const message = readRawMessage(data);
  const from = headerValue(message, 'from');
  const froms = message.fields.filter((field) => field.name === 'from').length;
  if (!from || froms !== 1 || parseMailbox(from) === undefined) throw replies.badFrom();
  const idempotencyKey = headerValue(message, 'idempotency-key');
  if (
    idempotencyKey !== undefined &&
    (idempotencyKey.length === 0 || idempotencyKey.length > MAX_KEY_LENGTH)
  ) {
    throw replies.badIdempotencyKey();
  }
  const subject = decodeSubject(headerValue(message, 'subject') ?? '').slice(0, MAX_SUBJECT_LENGTH);
  const mime = writeRawMessage({
    fields: message.fields.filter((field) => !isRemoved(field.name)),
    rest: message.rest,
  });
  return { from, subject, idempotencyKey, mime };
}

/** RFC 2047 encoded words (`=?utf-8?B?…?=`, `=?utf-8?Q?…?=`) decoded for the message log. */
function decodeSubject(raw: string): string {
  return raw
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(
      /=\?([^?\s]+)\?([BbQq])\?([^?\s]*)\?=/g,
      (word, charset: string, encoding: string, text: string) => {
        const bytes =
          encoding.toUpperCase() === 'B'
            ? Buffer.from(text, 'base64')
            : Buffer.from(
                text
                  .replace(/_/g, ' ')
                  .replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) =>
                    String.fromCharCode(parseInt(hex, 16)),
                  ),
                'latin1',
              );
        try {
          return new TextDecoder(charset.toLowerCase()).decode(bytes);
        } catch {
          return word;
        }
      },
    );
}
