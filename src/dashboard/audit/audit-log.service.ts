import { Injectable } from '@nestjs/common';
import { AuditLog } from '../../audit/audit-log';
import { redact } from '../../auth/api-key-secret';
import { ApiKeysService } from '../../auth/api-keys.service';
import { AuditEvent } from '../../generated/prisma/client';
import { isUuid } from '../../platform/crypto/ids';
import type { AccountId } from '../../platform/database/account-id';
import { ListQuery, Page } from '../../platform/pagination/page-request';
import { Paginator } from '../../platform/pagination/paginator';
import { UsersService } from '../people/users.service';

export type Actor =
  | { type: 'api_key'; id: string; name: string | null; redacted: string | null }
  | { type: 'user'; id: string; email: string | null; name: string | null }
  | { type: 'system' };

export interface AuditEventView {
  id: string;
  at: string;
  action: string;
  actor: Actor;
  /** A keyed hash of the person concerned: the audit log never holds a plaintext identity. */
  subject_hash: string | null;
  metadata: Record<string, unknown>;
}

/**
 * The audit log page: who did what. Actors are the account's own keys and team members,
 * named at read time; the people acted upon appear only as keyed hashes.
 */
@Injectable()
export class DashboardAuditService {
  constructor(
    private readonly events: AuditLog,
    private readonly keys: ApiKeysService,
    private readonly users: UsersService,
    private readonly paginator: Paginator,
  ) {}

  async list(accountId: AccountId, query: ListQuery): Promise<Page<AuditEventView>> {
    const page = await this.paginator.list(accountId, query, this.events, (row) => row);
    return { data: await this.present(accountId, page.data), next_cursor: page.next_cursor };
  }

  private async present(accountId: AccountId, rows: AuditEvent[]): Promise<AuditEventView[]> {
    const keyIds = unique(rows.flatMap((row) => [row.apiKeyId, metadataId(row, 'key_id')]));
    const userIds = unique(rows.map((row) => userIdOf(row)));
    const [keys, users] = await Promise.all([
      keyIds.length ? this.keys.names(accountId, keyIds) : [],
      userIds.length ? this.users.listByIds(accountId, userIds) : [],
    ]);
    const keyById = new Map(keys.map((key) => [key.id, key]));
    const userById = new Map(users.map((user) => [user.id, user]));

    return rows.map((row) => {
      // user_id is shown as the actor, not repeated among the details; a key is named.
      const metadata = { ...((row.metadata ?? {}) as Record<string, unknown>) };
      delete metadata.user_id;
      const namedKey = keyById.get(metadataId(row, 'key_id') ?? '');
      if (namedKey) {
        delete metadata.key_id;
        metadata.key = `${namedKey.name} (${redact(namedKey.lastFour)})`;
      }
      const userId = userIdOf(row);
      let actor: Actor = { type: 'system' };
      if (row.apiKeyId) {
        const key = keyById.get(row.apiKeyId);
        actor = {
          type: 'api_key',
          id: row.apiKeyId,
          name: key?.name ?? null,
          redacted: key ? redact(key.lastFour) : null,
        };
      } else if (userId) {
        const user = userById.get(userId);
        actor = { type: 'user', id: userId, email: user?.email ?? null, name: user?.name ?? null };
      }
      return {
        id: row.id,
        at: row.createdAt.toISOString(),
        action: row.action,
        actor,
        subject_hash: row.subjectHash,
        metadata,
      };
    });
  }
}

function userIdOf(row: AuditEvent): string | undefined {
  return metadataId(row, 'user_id');
}

/** An id recorded in the metadata, if it is one (metadata is free-form). */
function metadataId(row: AuditEvent, field: string): string | undefined {
  const value = (row.metadata as Record<string, unknown> | null)?.[field];
  return typeof value === 'string' && isUuid(value) ? value : undefined;
}

function unique(values: (string | null | undefined)[]): string[] {
  return [...new Set(values.filter((value): value is string => typeof value === 'string'))];
}
