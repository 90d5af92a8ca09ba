import { Injectable } from '@nestjs/common';
import type { AuditActor } from '../audit/audit-log';
import { Prisma } from '../generated/prisma/client';
import { ErasureGuard } from '../erasure/erasure-guard';
import { newIds } from '../platform/crypto/ids';
import { normalizeEmail } from '../platform/crypto/keyed-hasher';
import type { AccountId } from '../platform/database/account-id';
import type { PgClient } from '../platform/database/db';
import type { ErrorDetail } from '../platform/errors/api-errors';
import { SuppressionList } from '../suppression/suppression-list';
import { WebhookPublisher } from '../webhooks/webhook-publisher';
import type { BulkOutcome } from './subscriber-bulk-outcome';
import { BulkAnnouncements, bulkWriteEvents } from './subscriber-events';
import { emptyProfile } from './subscriber-fields';
import { toColumns } from './subscriber-columns';
import { CreateSubscriberDto } from './subscriber.dto';
import { mergedOverLimit } from './subscriber-merged-limits';
import { bodyOfStagedRow, StagedBatch } from './subscriber-stage';
import { ProfileRow, SubscribersRepository } from './subscribers.repository';

/** One validated item of a bulk write, at its place in the request or file. */
export interface BulkItem {
  /** Where the item came from (a batch index, a CSV row number): echoed in its outcome. */
  position: number;
  body: CreateSubscriberDto;
  /** The body's identity, when worked out beforehand (`identify`); else `write` does it. */
  identity?: BulkIdentity;
}

/** Who an item is about: its normalized email and that identity's erasure hash. */
export interface BulkIdentity {
  email: string;
  hash: string;
}

export type { BulkOutcome, BulkStatus } from './subscriber-bulk-outcome';

export interface BulkOptions {
  /** `create` leaves subscribers that already exist alone. */
  mode: 'upsert' | 'create';
  /**
   * Adds the item's custom fields to those a subscriber has (a CSV column names one key),
   * rather than replacing them as a PATCH does.
   */
  mergeCustomFields: boolean;
  /** Who writes, for the audit of refused erased identities, and through which endpoint. */
  actor: AuditActor;
  endpoint: string;
  /** The subscriber events the write publishes in its own transaction. */
  announce: BulkAnnouncements;
}

/** What a staged write did: counts, and the items that failed (with their errors). */
export interface StagedOutcome {
  created: number;
  updated: number;
  unchanged: number;
  erased: number;
  failed: BulkOutcome[];
}

interface State {
  row: ProfileRow;
  /** Not yet in the table: inserted at the end. */
  isNew: boolean;
  /** Exists and changed: updated at the end. */
  dirty: boolean;
}

/**
 * Writes many subscribers in one transaction with a handful of statements whatever their
 * number: locks every identity at once and refuses the erased ones (audited by hash), reads
 * and locks the existing rows, decides each item in order in memory (so the same email twice
 * in a batch behaves as two writes one after the other), then inserts the new rows and
 * updates the changed ones in one statement each. Items are validated beforehand with the
 * API's own DTO rules; the one rule that needs the database, no reactivation of a suppressed
 * address by setting `status: subscribed`, is checked here as a PATCH checks it.
 */
@Injectable()
export class SubscriberBulkWriter {
  constructor(
    private readonly subscribers: SubscribersRepository,
    private readonly erasureGuard: ErasureGuard,
    private readonly suppressions: SuppressionList,
    private readonly events: WebhookPublisher,
  ) {}

  /**
   * An item's identity. Hashing is most of the CPU a write spends before it needs the
   * database, so a caller that prepares its next batch while one is written (an import) does
   * this then, off the write's path.
   */
  identify(accountId: AccountId, body: CreateSubscriberDto): BulkIdentity {
    return this.identifyEmail(accountId, body.email);
  }

  /** `identify` of an email alone. */
  identifyEmail(accountId: AccountId, email: string): BulkIdentity {
    const normalized = normalizeEmail(email);
    return { email: normalized, hash: this.erasureGuard.emailHash(accountId, normalized) };
  }

  async write(client: PgClient, items: BulkItem[], options: BulkOptions): Promise<BulkOutcome[]> {
    const { accountId } = options.actor;
    const emails = new Array<string>(items.length);
    const hashes = new Map<string, string>();
    items.forEach((item, index) => {
      const identity = item.identity ?? this.identify(accountId, item.body);
      emails[index] = identity.email;
      if (!hashes.has(identity.email)) hashes.set(identity.email, identity.hash);
    });
    const erased = await this.erasureGuard.lockMany(accountId, [...hashes.values()], client);
    const live = [...hashes.keys()].filter((email) => !erased.has(hashes.get(email)!));
    const states = new Map<string, State>();
    for (const row of await this.subscribers.lockByEmails(client, accountId, live)) {
      states.set(row.emailNormalized, { row, isNew: false, dirty: false });
    }
    const suppressed = await this.suppressedAmong(items, emails, states, options);

    const outcomes: BulkOutcome[] = [];
    const refused = new Set<string>();
    const ids = newIds(items.length);
    items.forEach((item, index) => {
      const email = emails[index];
      const hash = hashes.get(email)!;
      if (erased.has(hash)) {
        refused.add(hash);
        outcomes.push({ position: item.position, status: 'erased' });
        return;
      }
      outcomes.push(this.apply(item, email, ids[index], states, suppressed, options));
    });

    const all = [...states.values()];
    await this.subscribers.insertMany(
      client,
      accountId,
      all.filter((state) => state.isNew).map((state) => state.row),
    );
    await this.subscribers.updateProfiles(
      client,
      accountId,
      all.filter((state) => state.dirty).map((state) => state.row),
    );
    await this.erasureGuard.auditRefusals(options.actor, [...refused], options.endpoint, client);
    // Announced like single writes, in the same transaction.
    const wanted = await this.events.wantedTypes(accountId, client);
    const events = await bulkWriteEvents(client, accountId, outcomes, wanted, options.announce);
    await this.events.publish(client, accountId, events);
    return outcomes;
  }

  /**
   * A large batch (an import's), most of it staged (`batch`: validated rows whose emails are all
   * different, as subscriber-stage.ts lines) and the rest as items (`later`: an email met again
   * in the batch, a body staging does not carry). The staged rows are COPY-ed into a temporary
   * table, their identities locked in one statement (hashes read from that table, in the usual
   * order), then decided and written by one more, with `write`'s rules (subscribers.sql.ts
   * UPSERT_STAGED). What that statement leaves to JavaScript (a suppressed address set back to
   * `subscribed`, custom fields that may pass their limits when merged) and the `later` items are
   * then written by `write`, in the order of their positions, so an email met twice is applied
   * in order. Only changes to `unsubscribed` are announced (`announce: 'unsubscribes'`). The
   * transaction must have been opened with `stagingTable`.
   */
  /**
   * The statement a transaction running `writeStaged` opens with (`PgPool.transaction`'s
   * `opening`): it makes the staging table where the connection has none.
   */
  get stagingTable(): string {
    return this.subscribers.stagingTable;
  }

  async writeStaged(
    client: PgClient,
    batch: StagedBatch,
    later: BulkItem[],
    options: BulkOptions,
  ): Promise<StagedOutcome> {
    if (options.announce !== 'unsubscribes') {
      throw new Error('a staged write announces changes to unsubscribed only');
    }
    const { accountId } = options.actor;
    const outcome: StagedOutcome = { created: 0, updated: 0, unchanged: 0, erased: 0, failed: [] };
    let erasedHashes = new Set<string>();
    let unsubscribed: string[] = [];
    const items: BulkItem[] = [];
    if (batch.size > 0) {
      const fields = batch.shape.fields.map((field) => field.name);
      await this.subscribers.stage(client, fields, batch.data());
      await this.erasureGuard.lockStaged(accountId, this.subscribers.stagedHashes, client);
      const result = await this.subscribers.upsertStaged(client, accountId, options.mode);
      outcome.created = result.created;
      outcome.updated = result.updated;
      outcome.unchanged = result.unchanged;
      outcome.erased = result.erased;
      erasedHashes = new Set(result.erasedHashes);
      unsubscribed = result.unsubscribed;
      for (const row of await this.subscribers.stagedRows(client, result.deferred)) {
        items.push({
          position: row.position as number,
          body: bodyOfStagedRow(row),
          identity: { email: row.email_normalized as string, hash: row.hash as string },
        });
      }
    }
    for (const item of later) {
      const identity = item.identity ?? this.identify(accountId, item.body);
      // Refused already in this batch, and audited once.
      if (erasedHashes.has(identity.hash)) outcome.erased++;
      else items.push({ ...item, identity });
    }
    if (items.length > 0) {
      items.sort((a, b) => a.position - b.position);
      for (const written of await this.write(client, items, options)) {
        if (written.status === 'failed') outcome.failed.push(written);
        else outcome[written.status]++;
      }
    }
    await this.erasureGuard.auditRefusals(
      options.actor,
      [...erasedHashes],
      options.endpoint,
      client,
    );
    if (unsubscribed.length > 0) {
      const wanted = await this.events.wantedTypes(accountId, client);
      const changed = unsubscribed.map((id): BulkOutcome => ({
        position: 0,
        status: 'updated',
        id,
        unsubscribed: true,
      }));
      const events = await bulkWriteEvents(client, accountId, changed, wanted, 'unsubscribes');
      await this.events.publish(client, accountId, events);
    }
    return outcome;
  }

  private apply(
    item: BulkItem,
    email: string,
    newId: string,
    states: Map<string, State>,
    suppressed: Set<string>,
    options: BulkOptions,
  ): BulkOutcome {
    const { position, body } = item;
    const state = states.get(email);
    if (!state) {
      const row = newProfile(newId, email, body);
      states.set(email, { row, isNew: true, dirty: false });
      return { position, status: 'created', id: row.id };
    }
    if (options.mode === 'create') return { position, status: 'unchanged', id: state.row.id };
    if (
      body.status === 'subscribed' &&
      state.row.status !== 'subscribed' &&
      suppressed.has(email)
    ) {
      return { position, status: 'failed', id: state.row.id, errors: [SUPPRESSED] };
    }
    const columns = changes(state.row, body, options.mergeCustomFields);
    if (columns.length === 0) return { position, status: 'unchanged', id: state.row.id };
    const overLimit = mergedOverLimit(columns);
    if (overLimit) return { position, status: 'failed', id: state.row.id, errors: [overLimit] };
    const before = state.row.status;
    const row = state.row as unknown as Record<string, unknown>;
    for (const [field, value] of columns) row[field] = value;
    if (state.isNew) return { position, status: 'updated', id: state.row.id };
    state.dirty = true;
    const unsubscribed = before !== 'unsubscribed' && state.row.status === 'unsubscribed';
    return { position, status: 'updated', id: state.row.id, ...(unsubscribed && { unsubscribed }) };
  }

  /**
   * The addresses, among items that would set a subscriber back to `subscribed`, that are on
   * the suppression list: one query for the batch, only when some item asks for it.
   */
  private async suppressedAmong(
    items: BulkItem[],
    emails: string[],
    states: Map<string, State>,
    options: BulkOptions,
  ): Promise<Set<string>> {
    if (options.mode === 'create') return new Set();
    const candidates = emails.filter(
      (email, index) =>
        items[index].body.status === 'subscribed' &&
        states.has(email) &&
        states.get(email)!.row.status !== 'subscribed',
    );
    if (candidates.length === 0) return new Set();
    return this.suppressions.suppressedAmong(options.actor.accountId, candidates);
  }
}

const SUPPRESSED: ErrorDetail = {
  field: 'status',
  code: 'suppressed',
  message:
    'This address is on the suppression list; removing it (DELETE /v1/suppressions/{email}) ' +
    'is the way to mail it again.',
};

/** A new subscriber's row: the item's fields over the table's defaults. */
function newProfile(id: string, email: string, body: CreateSubscriberDto): ProfileRow {
  const row: ProfileRow = {
    id,
    email: body.email.trim(),
    emailNormalized: email,
    ...emptyProfile(),
    importedStats: {},
  };
  Object.assign(row, toColumns(body));
  return row;
}

/** The columns an item changes on a row, as [field, new value]; none when it changes nothing. */
function changes(row: ProfileRow, body: CreateSubscriberDto, mergeCustom: boolean) {
  const columns = toColumns(body, row.importedStats as Prisma.JsonObject) as Record<
    string,
    unknown
  >;
  if (mergeCustom && columns.customFields !== undefined && body.custom_fields) {
    columns.customFields = { ...(row.customFields as object), ...body.custom_fields };
  }
  const current = row as unknown as Record<string, unknown>;
  return Object.entries(columns).filter(([field, value]) => !sameValue(current[field], value));
}

/** Equal as stored: dates by instant, lists in order, objects whatever their key order. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || a === undefined || b === undefined) {
    return (a ?? null) === (b ?? null);
  }
  if (a instanceof Date || b instanceof Date) {
    return new Date(a as Date).getTime() === new Date(b as Date).getTime();
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((item, index) => sameValue(item, b[index]))
    );
  }
  if (typeof a === 'object' && typeof b === 'object') {
    const left = a as Record<string, unknown>;
    const right = b as Record<string, unknown>;
    const keys = Object.keys(left);
    return (
      keys.length === Object.keys(right).length &&
      keys.every((key) => Object.hasOwn(right, key) && sameValue(left[key], right[key]))
    );
  }
  return false;
}
