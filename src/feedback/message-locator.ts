import { Injectable } from '@nestjs/common';
import { isUuid } from '../platform/crypto/ids';
import { SentMessageLookup } from './sent-message-lookup';
import type { MessageRef } from '../message-refs/message-ref';

/**
 * Finds the message a provider's notification is about. First by the Message-ID Herald set,
 * which names the message (`<campaign.subscriber@…>` or `<transactional id@…>`); failing
 * that, by the recipient: the latest message to that address in the last 7 days, across
 * accounts (a provider's webhook serves the whole installation).
 */
@Injectable()
export class MessageLocator {
  constructor(private readonly sent: SentMessageLookup) {}

  async locate(messageId: string | undefined, recipient: string | undefined) {
    return (
      parseMessageId(messageId) ?? (recipient === undefined ? null : this.sent.latestTo(recipient))
    );
  }
}

/** The message named by one of Herald's Message-IDs, with or without angle brackets. */
export function parseMessageId(header: string | undefined): MessageRef | null {
  if (!header) return null;
  const match = /^\s*<?([0-9a-f-]{36})(?:\.([0-9a-f-]{36}))?@[^\s<>@]+>?\s*$/i.exec(header);
  if (!match) return null;
  const [, first, second] = match;
  if (!isUuid(first) || (second !== undefined && !isUuid(second))) return null;
  const lower = first.toLowerCase();
  return second === undefined
    ? { kind: 'transactional', messageId: lower }
    : { kind: 'campaign', campaignId: lower, subscriberId: second.toLowerCase() };
}
