import { Injectable } from '@nestjs/common';
import type { AccountId } from '../platform/database/account-id';
import type { Db } from '../platform/database/db';
import { TransactionalMessagesRepository } from './transactional-messages.repository';

/**
 * Finds transactional messages that left, for the feedback loop: a bounce or complaint names
 * a message (through its return path or Message-ID), or only its recipient.
 */
@Injectable()
export class TransactionalSentMessages {
  constructor(private readonly messages: TransactionalMessagesRepository) {}

  find(messageId: string, db?: Db): Promise<{ accountId: AccountId; toAddress: string } | null> {
    return this.messages.findSent(messageId, db);
  }

  latestTo(
    recipients: { accountId: AccountId; recipientHash: string }[],
    days: number,
  ): Promise<{ id: string; sentAt: Date } | null> {
    return this.messages.latestSentTo(recipients, days);
  }
}
