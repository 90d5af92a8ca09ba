import { Injectable } from '@nestjs/common';
import type { AccountId } from '../platform/database/account-id';
import type { Db } from '../platform/database/db';

export interface ConversionRow {
  id: string;
  subscriberId: string;
  campaignId: string | null;
  amountCents: number;
  currency: string;
  occurredAt: Date;
}

/** conversions and its only writer. */
@Injectable()
export class ConversionsRepository {
  async create(accountId: AccountId, row: ConversionRow, tx: Db): Promise<void> {
    await tx.conversion.create({
      data: { ...row, accountId, amountCents: BigInt(row.amountCents) },
    });
  }
}
