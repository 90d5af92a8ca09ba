import { Injectable } from '@nestjs/common';
import { Prisma, Segment } from '../generated/prisma/client';
import { AuditLog } from '../audit/audit-log';
import { Principal } from '../auth/principal';
import { isUuid, newId } from '../platform/crypto/ids';
import type { AccountId } from '../platform/database/account-id';
import { ConflictError, NotFoundError } from '../platform/errors/api-errors';
import { ListQuery, Page } from '../platform/pagination/page-request';
import { Paginator } from '../platform/pagination/paginator';
import { CreateSegmentDto, UpdateSegmentDto } from './segment.dto';
import { parseSegmentFilter, SegmentFilter } from './segment-filter';
import { segmentFilterSql } from './segment-filter-sql';
import {
  presentSegment,
  presentSegmentWithCount,
  SegmentResponse,
  SegmentWithCountResponse,
} from './segment.presenter';
import { SegmentsRepository } from './segments.repository';

@Injectable()
export class SegmentsService {
  constructor(
    private readonly segments: SegmentsRepository,
    private readonly paginator: Paginator,
    private readonly audit: AuditLog,
  ) {}

  list(caller: Principal, query: ListQuery): Promise<Page<SegmentResponse>> {
    return this.paginator.list(caller.accountId, query, this.segments, presentSegment);
  }

  async get(caller: Principal, id: string): Promise<SegmentWithCountResponse> {
    const row = isUuid(id) ? await this.segments.findById(caller.accountId, id) : null;
    if (!row) throw new NotFoundError('segment');
    return this.withCount(caller.accountId, row);
  }

  async create(caller: Principal, body: CreateSegmentDto): Promise<SegmentWithCountResponse> {
    // The filter is stored as the client wrote it, once it has parsed: it is what they read back.
    parseSegmentFilter(body.filter);
    const row = await this.segments.create(caller.accountId, newId(), {
      name: body.name,
      filter: body.filter as Prisma.InputJsonObject,
    });
    await this.audit.recordBy(caller, {
      action: 'segment.created',
      metadata: { segment_id: row.id },
    });
    return this.withCount(caller.accountId, row);
  }

  async update(
    caller: Principal,
    id: string,
    body: UpdateSegmentDto,
  ): Promise<SegmentWithCountResponse> {
    if (body.filter !== undefined) parseSegmentFilter(body.filter);
    const row = isUuid(id)
      ? await this.segments.update(caller.accountId, id, {
          name: body.name,
          filter: body.filter as Prisma.InputJsonObject | undefined,
        })
      : null;
    if (!row) throw new NotFoundError('segment');
    return this.withCount(caller.accountId, row);
  }

  async delete(caller: Principal, id: string): Promise<void> {
    const outcome = isUuid(id) ? await this.segments.delete(caller.accountId, id) : 'not_found';
    if (outcome === 'not_found') throw new NotFoundError('segment');
    if (outcome === 'in_use') {
      throw new ConflictError('A campaign that has not been sent yet uses this segment.');
    }
    await this.audit.recordBy(caller, { action: 'segment.deleted', metadata: { segment_id: id } });
  }

  /** How many subscribers an unsaved filter matches now (the rule builder's live count). */
  async countDraft(caller: Principal, filter: unknown): Promise<{ count: number }> {
    const parsed = parseSegmentFilter(filter);
    return { count: await this.segments.countMatching(caller.accountId, parsed) };
  }

  /**
   * How many subscribers a segment holds (without one: every subscriber), counting only those
   * whose status is `mailableStatus`; and which segment that was. A segment id that no
   * longer exists counts as no segment, as a send would.
   */
  async countAudience(
    caller: Principal,
    segmentId: string | null,
    mailableStatus: string,
  ): Promise<{ count: number; segment: { id: string; name: string } | null }> {
    const segment =
      segmentId && isUuid(segmentId)
        ? await this.segments.findById(caller.accountId, segmentId)
        : null;
    const eligible = parseSegmentFilter({ field: 'status', op: 'eq', value: mailableStatus });
    const filter: SegmentFilter = segment
      ? { kind: 'and', filters: [parseSegmentFilter(segment.filter), eligible] }
      : eligible;
    return {
      count: await this.segments.countMatching(caller.accountId, filter),
      segment: segment ? { id: segment.id, name: segment.name } : null,
    };
  }

  /** Whether this account has the segment (a campaign naming it). */
  async exists(accountId: AccountId, id: string): Promise<boolean> {
    return isUuid(id) && (await this.segments.findById(accountId, id)) !== null;
  }

  /**
   * The segment's filter, parsed, for a campaign's fan-out to compile into its audience
   * query; undefined when there is no such segment.
   */
  async filterOf(accountId: AccountId, id: string): Promise<SegmentFilter | undefined> {
    const row = isUuid(id) ? await this.segments.findById(accountId, id) : null;
    return row ? parseSegmentFilter(row.filter) : undefined;
  }

  /**
   * Who a campaign or an export addresses, as one predicate over `subscribers s`: everyone
   * without a segment, the segment's filter with one; undefined when the segment is gone.
   */
  async audienceSql(
    accountId: AccountId,
    segmentId: string | null,
  ): Promise<Prisma.Sql | undefined> {
    if (!segmentId) return Prisma.sql`TRUE`;
    const filter = await this.filterOf(accountId, segmentId);
    return filter === undefined ? undefined : segmentFilterSql(filter);
  }

  /**
   * Segment rules that are not a stored segment's (an automation's trigger filter or
   * condition) as one predicate over `subscribers s`; throws ValidationFailedError when
   * they do not parse.
   */
  filterSql(filter: unknown): Prisma.Sql {
    return segmentFilterSql(parseSegmentFilter(filter));
  }

  private async withCount(accountId: AccountId, row: Segment): Promise<SegmentWithCountResponse> {
    const count = await this.segments.countMatching(accountId, parseSegmentFilter(row.filter));
    return presentSegmentWithCount(row, count);
  }
}
