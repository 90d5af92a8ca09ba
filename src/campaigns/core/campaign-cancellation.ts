import { Injectable } from '@nestjs/common';
import type { AccountId } from '../../platform/database/account-id';
import { PrismaService } from '../../platform/database/prisma.service';
import { CampaignLedgerRepository } from '../ledger/campaign-ledger.repository';
import { CampaignsRepository } from './campaigns.repository';

/**
 * A deadlock or a serialization failure, as PostgreSQL (40P01, 40001) or Prisma (P2034) names
 * it: the transaction may be tried again.
 */
const RETRYABLE = new Set(['40P01', '40001', 'P2034']);
const ATTEMPTS = 3;

/**
 * Cancels a campaign that has not finished, in one transaction: the campaign row first (a
 * fan-out batch being written commits before this goes on, so no pending row can appear
 * after the sweep), then every pending ledger row becomes skipped (cancelled) and is counted.
 * Rows already claimed by a worker are in flight: they finish and are recorded as usual.
 *
 * An erasure takes ledger rows before campaign rows, the other order; the rare deadlock
 * between the two is PostgreSQL's to detect, and the cancellation is simply tried again.
 */
@Injectable()
export class CampaignCancellation {
  constructor(
    private readonly prisma: PrismaService,
    private readonly campaigns: CampaignsRepository,
    private readonly ledger: CampaignLedgerRepository,
  ) {}

  /** The number of recipients left unsent, or undefined when the campaign was not cancellable. */
  async cancel(accountId: AccountId, id: string): Promise<number | undefined> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.prisma.$transaction(async (tx) => {
          if (!(await this.campaigns.markCancelled(accountId, id, tx))) return undefined;
          const cancelled = await this.ledger.cancelPending(accountId, id, tx);
          await this.campaigns.countCancelled(accountId, id, cancelled, tx);
          return cancelled;
        });
      } catch (error) {
        if (attempt >= ATTEMPTS || !RETRYABLE.has(sqlState(error) ?? '')) throw error;
      }
    }
  }
}

/** The SQLSTATE of a failed statement, wherever Prisma's driver adapter put it. */
function sqlState(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    const record = current as Record<string, unknown>;
    for (const key of ['code', 'originalCode']) {
      const value = record[key];
      if (typeof value === 'string' && /^[0-9A-Z]{5}$/.test(value)) return value;
    }
    current = record.meta ?? record.cause;
  }
  return undefined;
}
