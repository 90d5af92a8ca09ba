import { Injectable } from '@nestjs/common';
import { AccountsService } from '../accounts/accounts.service';
import { FeedbackService } from '../feedback/feedback.service';
import { RecipientRef, RecipientTokens } from '../message-refs/recipient-token';
import { SuppressionsService } from '../suppression/suppressions.service';
import { escapeHtml, postButton } from './subscription-page';

/**
 * What the unsubscribe and preferences pages do with the person behind a link: both take the
 * unsubscribe link's token, so both read and act on the same recipient through here.
 */
@Injectable()
export class OptOutLinks {
  constructor(
    private readonly tokens: RecipientTokens,
    private readonly feedback: FeedbackService,
    private readonly suppressions: SuppressionsService,
    private readonly accounts: AccountsService,
  ) {}

  /** The recipient a link names; null for a forged, garbled or foreign token. */
  recipientOf(token: string): RecipientRef | null {
    return this.tokens.verify('unsubscribe', token);
  }

  /** Whether the recipient receives the account's mail; null when they no longer exist. */
  subscription(ref: RecipientRef) {
    return this.suppressions.subscription(ref.accountId, ref.subscriberId);
  }

  /** The sending account's name, escaped for the page. */
  async senderName(ref: RecipientRef): Promise<string> {
    return escapeHtml((await this.accounts.settings(ref.accountId)).name);
  }

  unsubscribe(ref: RecipientRef): Promise<void> {
    return this.feedback.unsubscribeViaLink(ref);
  }

  /** Subscribed again, when their own unsubscribe or complaint is what stopped the mail. */
  resubscribe(ref: RecipientRef): Promise<boolean> {
    return this.suppressions.resubscribe(ref.accountId, ref.subscriberId);
  }

  /** The page after an unsubscribe: what happened, and the way back for a mistaken click. */
  async unsubscribedBody(ref: RecipientRef, token: string): Promise<string> {
    const sender = await this.senderName(ref);
    return (
      `<p>You have been unsubscribed. You will not receive emails from <strong>${sender}</strong> any more.</p>` +
      `<p>Unsubscribed by mistake?</p>` +
      postButton(`/preferences/${token}`, 'Subscribe again', ['action', 'subscribe'])
    );
  }
}
