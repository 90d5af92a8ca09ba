import { Injectable } from '@nestjs/common';
import { AccountsService } from '../accounts/accounts.service';
import { CampaignSentMessages } from '../campaigns/ledger/campaign-sent-messages';
import { ErasureGuard } from '../erasure/erasure-guard';
import { normalizeEmail } from '../platform/crypto/keyed-hasher';
import type { AccountId } from '../platform/database/account-id';
import type { Db } from '../platform/database/db';
import { SubscribersService } from '../subscribers/subscribers.service';
import { TransactionalSentMessages } from '../transactional/transactional-sent-messages';
import type { MessageRef } from '../message-refs/message-ref';

/** How far back a notification without Herald's Message-ID is matched by its recipient. */
const RECENT_DAYS = 7;

/** The message a report is about, as found in the send records. */
export interface LocatedMessage {
  accountId: AccountId;
  emailNormalized: string;
  subscriberId: string | null;
  campaignId: string | null;
  transactionalMessageId: string | null;
  /** The relay already refused it with a 5xx: that hard bounce was counted at sending. */
  refusedAtSending: boolean;
}

/**
 * Finds, through the services of the modules that own the send records, the message a
 * report is about and its recipient.
 */
@Injectable()
export class SentMessageLookup {
  constructor(
    private readonly campaignMessages: CampaignSentMessages,
    private readonly transactionalMessages: TransactionalSentMessages,
    private readonly subscribers: SubscribersService,
    private readonly accounts: AccountsService,
    private readonly erasureGuard: ErasureGuard,
  ) {}

  /**
   * The message and its recipient, or null when Herald never sent it (a campaign row still
   * pending or skipped) or the recipient is gone: an erased subscriber, a scrubbed message.
   */
  async locate(ref: MessageRef, tx: Db): Promise<LocatedMessage | null> {
    if (ref.kind === 'campaign') {
      const sent = await this.campaignMessages.find(ref.campaignId, ref.subscriberId, tx);
      if (!sent) return null;
      const email = await this.subscribers.emailOf(sent.accountId, ref.subscriberId, tx);
      if (email === null) return null;
      return {
        accountId: sent.accountId,
        emailNormalized: email,
        subscriberId: ref.subscriberId,
        campaignId: ref.campaignId,
        transactionalMessageId: null,
        refusedAtSending: sent.refusedAtSending,
      };
    }
    const sent = await this.transactionalMessages.find(ref.messageId, tx);
    if (!sent) return null;
    const subscriber = await this.subscribers.findByEmail(sent.accountId, sent.toAddress, tx);
    return {
      accountId: sent.accountId,
      emailNormalized: normalizeEmail(sent.toAddress),
      subscriberId: subscriber?.id ?? null,
      campaignId: null,
      transactionalMessageId: ref.messageId,
      // Its stored error is the relay's free text, not a code: such a refusal is rare
      // enough beside a later report that it is not told apart.
      refusedAtSending: false,
    };
  }

  /**
   * The most recent message of the last RECENT_DAYS days to this address, in any account: a
   * provider's webhook serves the whole installation. Campaign mail is found through the
   * subscribers with that address; transactional mail through each account's erasure hash
   * of the recipient.
   */
  async latestTo(recipient: string): Promise<MessageRef | null> {
    const accountIds = await this.accounts.allIds();
    if (accountIds.length === 0) return null;
    const [campaign, transactional] = await Promise.all([
      this.subscribers
        .idsByEmail(accountIds, recipient)
        .then((subscribers) => this.campaignMessages.latestTo(subscribers, RECENT_DAYS)),
      this.transactionalMessages.latestTo(
        accountIds.map((accountId) => ({
          accountId,
          recipientHash: this.erasureGuard.emailHash(accountId, recipient),
        })),
        RECENT_DAYS,
      ),
    ]);
    if (transactional && (!campaign || transactional.sentAt > campaign.sentAt)) {
      return { kind: 'transactional', messageId: transactional.id };
    }
    return campaign
      ? { kind: 'campaign', campaignId: campaign.campaignId, subscriberId: campaign.subscriberId }
      : null;
  }
}
