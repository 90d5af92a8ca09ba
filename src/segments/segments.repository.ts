import { Injectable } from '@nestjs/common';
import { Prisma, Segment } from '../generated/prisma/client';
import type { AccountId } from '../platform/database/account-id';
import type { Db } from '../platform/database/db';
import { PrismaService } from '../platform/database/prisma.service';
import { keysetPage, KeysetListing, PageRequest } from '../platform/pagination/page-request';
import { SegmentFilter } from './segment-filter';
import { segmentFilterSql } from './segment-filter-sql';
import * as sql from './segments.sql';

export interface SegmentColumns {
  name?: string;
  filter?: Prisma.InputJsonObject;
}

export type DeleteOutcome = 'deleted' | 'not_found' | 'in_use';

/** The segments table and its only writer. The raw statements are in segments.sql.ts. */
@Injectable()
export class SegmentsRepository implements KeysetListing<Segment> {
  readonly listName = 'segments';

  constructor(private readonly prisma: PrismaService) {}

  listPage(accountId: AccountId, page: PageRequest): Promise<Segment[]> {
    return this.prisma.segment.findMany(keysetPage(accountId, page));
  }

  findById(accountId: AccountId, id: string): Promise<Segment | null> {
    return this.prisma.segment.findFirst({ where: { accountId, id } });
  }

  create(accountId: AccountId, id: string, columns: Required<SegmentColumns>): Promise<Segment> {
    return this.prisma.segment.create({ data: { ...columns, id, accountId } });
  }

  /** Null when no such segment in this account. */
  async update(accountId: AccountId, id: string, columns: SegmentColumns): Promise<Segment | null> {
    const { count } = await this.prisma.segment.updateMany({
      where: { accountId, id },
      // Stamped here too: Prisma skips @updatedAt when no other column changes, and an empty
      // PATCH still counts as an update.
      data: { ...columns, updatedAt: new Date() },
    });
    return count === 0 ? null : this.findById(accountId, id);
  }

  /**
   * Deleting a segment sets campaign.segment_id to NULL, which would silently widen a
   * pending campaign to every subscriber; so a segment that a campaign not yet sent (nor
   * cancelled) uses is kept. The check and the delete are one statement.
   */
  async delete(accountId: AccountId, id: string): Promise<DeleteOutcome> {
    const { count } = await this.prisma.segment.deleteMany({
      where: { accountId, id, campaigns: { none: { status: { notIn: ['sent', 'cancelled'] } } } },
    });
    if (count > 0) return 'deleted';
    return (await this.findById(accountId, id)) ? 'in_use' : 'not_found';
  }

  /** Subscribers of the account matching the filter, with the same SQL the campaign fan-out runs. */
  async countMatching(accountId: AccountId, filter: SegmentFilter): Promise<number> {
    const [row] = await this.prisma.$queryRaw<{ count: bigint }[]>(
      sql.countMatching(accountId, segmentFilterSql(filter)),
    );
    return Number(row?.count ?? 0);
  }

  /** Erasure: the filters that may name an email, read inside the erasing transaction. */
  filtersWithEmailConditions(
    accountId: AccountId,
    tx: Db,
  ): Promise<{ id: string; filter: Prisma.JsonValue }[]> {
    return tx.$queryRaw(sql.filtersWithEmailConditions(accountId));
  }

  /** Erasure: a filter with the erased email replaced, written inside the erasing transaction. */
  async replaceFilter(
    accountId: AccountId,
    id: string,
    filter: Prisma.InputJsonValue,
    tx: Db,
  ): Promise<void> {
    await tx.$executeRaw(sql.replaceFilter(accountId, id, JSON.stringify(filter)));
  }
}
