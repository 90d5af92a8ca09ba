import { Injectable } from '@nestjs/common';
import { ErasureGuard } from '../erasure/erasure-guard';
import { isUuid } from '../platform/crypto/ids';
import { normalizeEmail } from '../platform/crypto/keyed-hasher';
import { FeedbackRepository } from './feedback.repository';
import { MessageRef } from './verp-address';

/**
 * Finds the message a provider's notification is about. First by the Message-ID Herald set,
 * which names the message (`<campaign.subscriber@…>` or `<transactional id@…>`); failing
 * that, by the recipient: the latest message to that address in the last 7 days, across
 * accounts (a provider's webhook serves the whole installation).
 */
@Injectable()
export class MessageLocator {
  constructor(
    private readonly repository: FeedbackRepository,
    private readonly erasureGuard: ErasureGuard,
  ) {}

  async locate(messageId: string | undefined, recipient: string | undefined) {
    return (
      parseMessageId(messageId) ?? (recipient === undefined ? null : this.byRecipient(recipient))
    );
  }

  private async byRecipient(recipient: string): Promise<MessageRef | null> {
    const accounts = (await this.repository.accountIds()).map((accountId) => ({
      accountId,
      recipientHash: this.erasureGuard.emailHash(accountId, recipient),
    }));
    return this.repository.latestTo(normalizeEmail(recipient), accounts);
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
