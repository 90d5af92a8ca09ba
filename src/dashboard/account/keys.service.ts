import { Injectable } from '@nestjs/common';
import { AuditLog } from '../../audit/audit-log';
import { redact } from '../../auth/api-key-secret';
import { Principal } from '../../auth/principal';
import { canManageKeys, RoleForbiddenError } from '../people/roles';
import { ApiKeysService, KeyCreationError, KeyRow } from '../../auth/api-keys.service';
import { NotFoundError, ValidationFailedError } from '../../platform/errors/api-errors';

export interface KeyView {
  id: string;
  name: string;
  /** `sk_live_…` and the last four characters: all the dashboard shows after creation. */
  redacted: string;
  scopes: string[];
  status: string;
  created_at: string;
  last_used_at: string | null;
}

function present(row: KeyRow): KeyView {
  return {
    id: row.id,
    name: row.name,
    redacted: redact(row.lastFour),
    scopes: row.scopes,
    status: row.status,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
  };
}

/** Account > API Keys: the only place besides the operator CLI that issues keys. */
@Injectable()
export class DashboardKeysService {
  constructor(
    private readonly issuer: ApiKeysService,
    private readonly audit: AuditLog,
  ) {}

  async list(caller: Principal): Promise<{ data: KeyView[] }> {
    allowed(caller);
    return { data: (await this.issuer.list(caller.accountId)).map(present) };
  }

  /** The new key with its secret: the one time the secret leaves the server. */
  async create(
    caller: Principal,
    name: string,
    scopes: string[],
  ): Promise<KeyView & { secret: string }> {
    allowed(caller);
    let created;
    try {
      created = await this.issuer.create(caller.accountId, name, scopes);
    } catch (error) {
      if (!(error instanceof KeyCreationError)) throw error;
      throw new ValidationFailedError([
        { field: 'name', code: 'invalid_value', message: error.message },
      ]);
    }
    await this.audit.recordBy(caller, {
      action: 'api_key.created',
      metadata: { key_id: created.id, scopes: created.scopes.join(' ') },
    });
    const row = await this.issuer.find(caller.accountId, created.id);
    if (!row) throw new NotFoundError('API key');
    return { ...present(row), secret: created.key };
  }

  async revoke(caller: Principal, id: string): Promise<KeyView> {
    allowed(caller);
    const row = await this.issuer.find(caller.accountId, id);
    if (!row) throw new NotFoundError('API key');
    if (row.status !== 'revoked') {
      await this.issuer.setStatus(caller.accountId, id, 'revoked');
      await this.audit.recordBy(caller, { action: 'api_key.revoked', metadata: { key_id: id } });
    }
    return present({ ...row, status: 'revoked' });
  }
}

/** API keys are owners' and admins' (people/roles.ts); the caller here is always a person. */
function allowed(caller: Principal): void {
  if (caller.userId !== undefined && !canManageKeys(caller.role)) {
    throw new RoleForbiddenError(caller.role, 'manage API keys');
  }
}
