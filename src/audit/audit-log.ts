import { Global, Injectable, Module } from '@nestjs/common';
import type { Principal } from '../auth/principal';
import { AuditEvent } from '../generated/prisma/client';
import { newId } from '../platform/crypto/ids';
import type { AccountId } from '../platform/database/account-id';
import type { Db, PgClient } from '../platform/database/db';
import { KeysetListing, PageRequest } from '../platform/pagination/page-request';
import { AuditEventsRepository } from './audit-events.repository';

/**
 * Every action Herald records, under the names the audit page shows (stored rows keep them,
 * so a name is never changed). Services record them, whichever surface the caller came from.
 */
export type AuditAction =
  | 'account.created'
  | 'user.signed_in'
  /** Asked for a password reset link (recorded only for an email that has an account). */
  | 'user.password_reset_requested'
  /** Set a new password through a reset link; every session of theirs was ended. */
  | 'user.password_reset'
  /** An owner gave someone another role (`member_id`, `from`, `to`; `user_id` is the owner). */
  | 'user.role_changed'
  /** Someone was removed from the account (`member_id`, `role`); their sessions ended with it. */
  | 'user.removed'
  | 'invitation.created'
  | 'invitation.revoked'
  /** Someone joined the account through an invitation (`user_id` is the new member). */
  | 'invitation.accepted'
  | 'api_key.created'
  | 'api_key.revoked'
  | 'identity.erased'
  /** An erasure started from a subscriber's record (the dashboard's Erase button). */
  | 'identity.erased_from_dashboard'
  | 'erased_identity.write_refused'
  | 'template.created'
  | 'template.deleted'
  | 'segment.created'
  | 'segment.deleted'
  | 'campaign.created'
  | 'campaign.deleted'
  | 'campaign.sent'
  | 'campaign.scheduled'
  | 'campaign.unscheduled'
  /** A scheduled campaign went back to draft at its time: its From could no longer send. */
  | 'campaign.schedule_failed'
  | 'campaign.paused'
  | 'campaign.resumed'
  | 'campaign.cancelled'
  | 'campaign.test_sent'
  /** A new draft copied from a campaign (`campaign_id` the copy, `source_id` the original). */
  | 'campaign.duplicated'
  | 'sender_domain.added'
  | 'sender_domain.deleted'
  | 'sender_domain.verified'
  | 'sender_domain.failed'
  | 'sender_domain.pending'
  | 'sender_domain.rotation_started'
  | 'sender_domain.key_rotated'
  /** Webhook endpoints: created (the secret shown once), changed, deleted. */
  | 'webhook.created'
  | 'webhook.updated'
  | 'webhook.deleted'
  | 'suppression.added'
  | 'suppression.removed'
  /** A suppression entry's removal put a subscriber back to `subscribed`. */
  | 'subscriber.resubscribed'
  | 'account.postal_address_updated'
  | 'subscriber_import.created'
  | 'subscriber_export.created'
  | 'automation.created'
  | 'automation.updated'
  | 'automation.deleted'
  | 'automation.activated'
  | 'automation.paused';

/** Who acted, as a bulk job remembers it: an API key, or a person (the row's user id). */
export interface AuditActor {
  accountId: AccountId;
  apiKeyId?: string;
  userId?: string;
}

export interface AuditEntry {
  action: AuditAction;
  apiKeyId?: string;
  /** A keyed hash of the identity concerned: the audit log never holds plaintext. */
  subjectHash?: string;
  metadata?: Record<string, string | number | boolean>;
}

/** Metadata-only audit trail: who did what, never the personal data acted upon. */
@Injectable()
export class AuditLog implements KeysetListing<AuditEvent> {
  readonly listName = 'dashboard-audit';

  constructor(private readonly events: AuditEventsRepository) {}

  /**
   * Records an action with its real actor: an API key by its id, a person by `user_id` in
   * the metadata (the audit page names both at read time).
   */
  async recordBy(caller: Principal, entry: Omit<AuditEntry, 'apiKeyId'>, db?: Db): Promise<void> {
    const metadata = caller.userId ? { ...entry.metadata, user_id: caller.userId } : entry.metadata;
    await this.record(caller.accountId, { ...entry, apiKeyId: caller.apiKeyId, metadata }, db);
  }

  /**
   * Records several actions of one actor in one statement, inside a pg transaction (bulk
   * writes, which run on PgPool rather than Prisma).
   */
  async recordMany(
    actor: AuditActor,
    entries: Omit<AuditEntry, 'apiKeyId'>[],
    client: PgClient,
  ): Promise<void> {
    if (entries.length === 0) return;
    await this.events.createMany(
      client,
      actor.accountId,
      entries.map((entry) => ({
        id: newId(),
        action: entry.action,
        apiKeyId: actor.apiKeyId,
        subjectHash: entry.subjectHash,
        metadata: actor.userId
          ? { ...entry.metadata, user_id: actor.userId }
          : (entry.metadata ?? {}),
      })),
    );
  }

  /** Records an action; `db` joins the transaction that did it. */
  async record(accountId: AccountId, entry: AuditEntry, db?: Db): Promise<void> {
    await this.events.create(
      accountId,
      {
        id: newId(),
        action: entry.action,
        apiKeyId: entry.apiKeyId,
        subjectHash: entry.subjectHash,
        metadata: entry.metadata ?? {},
      },
      db,
    );
  }

  /** One page of the account's trail, newest first (the dashboard's audit page). */
  listPage(accountId: AccountId, page: PageRequest): Promise<AuditEvent[]> {
    return this.events.listPage(accountId, page);
  }
}

@Global()
@Module({ providers: [AuditEventsRepository, AuditLog], exports: [AuditLog] })
export class AuditModule {}
