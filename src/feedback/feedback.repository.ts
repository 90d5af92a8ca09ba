import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import { newId } from '../platform/crypto/ids';
import { AccountId, accountIdOfRow } from '../platform/database/account-id';
import { PrismaService } from '../platform/database/prisma.service';
import { FeedbackKind, FeedbackReport } from './feedback-report';
import * as sql from './feedback.sql';
import { MessageRef } from './verp-address';

type Db = Prisma.TransactionClient;

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
 * The feedback ledger (`delivery_feedback`, written only here) and what it reads of the send
 * records to find the message a report is about. The campaign's counters move through the
 * campaigns module, in the same transaction as these rows.
 */
@Injectable()
export class FeedbackRepository {
  constructor(private readonly prisma: PrismaService) {}

  transaction<T>(work: (tx: Db) => Promise<T>): Promise<T> {
    return this.prisma.$transaction(work);
  }

  /** Serialises reports about one message, so "the first of its kind" is decided once. */
  async lockMessage(tx: Db, key: string): Promise<void> {
    await tx.$executeRaw(sql.lockMessage(key));
  }

  /**
   * The message and its recipient, or null when Herald never sent it (a campaign row still
   * pending or skipped) or the recipient is gone: an erased subscriber, a scrubbed message.
   */
  async locate(tx: Db, ref: MessageRef): Promise<LocatedMessage | null> {
    if (ref.kind === 'campaign') {
      const [row] = await tx.$queryRaw<
        { account_id: string; subscriber_id: string; email_normalized: string; refused: boolean }[]
      >(sql.campaignMessage(ref.campaignId, ref.subscriberId));
      if (!row) return null;
      return {
        accountId: accountIdOfRow(row.account_id),
        emailNormalized: row.email_normalized,
        subscriberId: row.subscriber_id,
        campaignId: ref.campaignId,
        transactionalMessageId: null,
        refusedAtSending: row.refused,
      };
    }
    const [row] = await tx.$queryRaw<
      { account_id: string; to_address: string; subscriber_id: string | null }[]
    >(sql.transactionalMessage(ref.messageId));
    if (!row) return null;
    return {
      accountId: accountIdOfRow(row.account_id),
      emailNormalized: row.to_address.trim().toLowerCase(),
      subscriberId: row.subscriber_id,
      campaignId: null,
      transactionalMessageId: ref.messageId,
      // Its stored error is the relay's free text, not a code: such a refusal is rare
      // enough beside a later report that it is not told apart.
      refusedAtSending: false,
    };
  }

  /** Whether a report of this kind about the message was recorded before. */
  async seen(tx: Db, accountId: AccountId, key: string, kind: FeedbackKind): Promise<boolean> {
    const [row] = await tx.$queryRaw<{ found: boolean }[]>(sql.seen(accountId, key, kind));
    return row?.found ?? false;
  }

  /** Records the report; false when the same event (source and key) was recorded before. */
  async record(
    tx: Db,
    message: LocatedMessage,
    report: FeedbackReport,
    key: string,
  ): Promise<boolean> {
    const inserted = await tx.$executeRaw(sql.record(newId(), message, report, key));
    return inserted === 1;
  }

  /**
   * Every account id. Provider webhooks are installation-wide, so a notification that does
   * not carry Herald's Message-ID is matched across accounts: the one query that must be.
   */
  async accountIds(): Promise<AccountId[]> {
    const rows = await this.prisma.$queryRaw<{ id: string }[]>(sql.ACCOUNT_IDS);
    return rows.map((row) => accountIdOfRow(row.id));
  }

  /**
   * The most recent message of the last RECENT_DAYS days to this address, among the given
   * accounts. Campaign mail is found through the subscriber (account, address) index;
   * transactional mail through the per-account erasure hash of its recipient, since its
   * address column is not indexed (and is scrubbed on erasure).
   */
  async latestTo(
    emailNormalized: string,
    accounts: { accountId: AccountId; recipientHash: string }[],
  ): Promise<MessageRef | null> {
    if (accounts.length === 0) return null;
    const ids = accounts.map((a) => a.accountId);
    const hashes = accounts.map((a) => a.recipientHash);
    const [row] = await this.prisma.$queryRaw<
      { campaign_id: string | null; subscriber_id: string | null; message_id: string | null }[]
    >(sql.latestTo(emailNormalized, ids, hashes));
    if (!row) return null;
    if (row.message_id) return { kind: 'transactional', messageId: row.message_id };
    return { kind: 'campaign', campaignId: row.campaign_id!, subscriberId: row.subscriber_id! };
  }
}
