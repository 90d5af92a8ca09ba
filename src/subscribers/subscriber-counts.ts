import { Injectable } from '@nestjs/common';
import type { AccountId } from '../platform/database/account-id';
import { PrismaService } from '../platform/database/prisma.service';

/** How many subscribers an account has, by the statuses Herald sets. */
export interface CountsByStatus {
  total: number;
  subscribed: number;
  unsubscribed: number;
  bounced: number;
  complained: number;
}

/** A read of the subscribers table for the account's statistics: one GROUP BY. */
@Injectable()
export class SubscriberCounts {
  constructor(private readonly prisma: PrismaService) {}

  async byStatus(accountId: AccountId): Promise<CountsByStatus> {
    const groups = await this.prisma.subscriber.groupBy({
      by: ['status'],
      where: { accountId },
      _count: { _all: true },
    });
    const counts: CountsByStatus = {
      total: 0,
      subscribed: 0,
      unsubscribed: 0,
      bounced: 0,
      complained: 0,
    };
    for (const group of groups) {
      counts.total += group._count._all;
      if (group.status in counts && group.status !== 'total') {
        counts[group.status as keyof CountsByStatus] += group._count._all;
      }
    }
    return counts;
  }
}
