import { Injectable } from '@nestjs/common';
import { AuditEvent, Prisma } from '../generated/prisma/client';
import type { AccountId } from '../platform/database/account-id';
import type { Db, PgClient } from '../platform/database/db';
import { PrismaService } from '../platform/database/prisma.service';
import { keysetPage, PageRequest } from '../platform/pagination/page-request';

/** Audit rows from a JSON array, one statement. $1 account, $2 rows. */
const INSERT_MANY = `INSERT INTO audit_events (id, account_id, api_key_id, action, subject_hash, metadata)
  SELECT r.id, $1, r.api_key_id, r.action, r.subject_hash, r.metadata
    FROM jsonb_to_recordset($2::jsonb)
      AS r(id uuid, api_key_id uuid, action text, subject_hash text, metadata jsonb)`;

/** audit_events and its only writer: metadata only, identities as keyed hashes. */
@Injectable()
export class AuditEventsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async create(
    accountId: AccountId,
    event: {
      id: string;
      action: string;
      apiKeyId?: string;
      subjectHash?: string;
      metadata: Prisma.InputJsonObject;
    },
    db: Db = this.prisma,
  ): Promise<void> {
    await db.auditEvent.create({ data: { ...event, accountId } });
  }

  /** Many rows in one INSERT, on a pg transaction. */
  async createMany(
    client: PgClient,
    accountId: AccountId,
    events: {
      id: string;
      action: string;
      apiKeyId?: string;
      subjectHash?: string;
      metadata: Record<string, unknown>;
    }[],
  ): Promise<void> {
    await client.query(INSERT_MANY, [
      accountId,
      JSON.stringify(
        events.map((event) => ({
          id: event.id,
          action: event.action,
          api_key_id: event.apiKeyId ?? null,
          subject_hash: event.subjectHash ?? null,
          metadata: event.metadata,
        })),
      ),
    ]);
  }

  /** Newest first, keyset on the time-ordered id over the (account_id, id) index. */
  listPage(accountId: AccountId, page: PageRequest): Promise<AuditEvent[]> {
    return this.prisma.auditEvent.findMany(keysetPage(accountId, page));
  }
}
