import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import { newId } from '../platform/crypto/ids';
import type { AccountId } from '../platform/database/account-id';
import { PrismaService } from '../platform/database/prisma.service';
import { FeedbackKind, FeedbackReport } from '../message-refs/feedback-report';
import * as sql from './feedback.sql';
import type { LocatedMessage } from './sent-message-lookup';

type Db = Prisma.TransactionClient;

/**
 * The feedback ledger, `delivery_feedback`, written only here. The campaign's counters and the
 * subscriber's statistics move through their modules, in the same transaction as these rows.
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
}
