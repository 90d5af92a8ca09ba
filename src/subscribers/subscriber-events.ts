import { Subscriber } from '../generated/prisma/client';
import type { AccountId } from '../platform/database/account-id';
import { runSql, SqlRunner } from '../platform/database/sql-runner';
import type { OutboundEvent } from '../webhooks/webhook-event-types';
import type { BulkOutcome } from './subscriber-bulk-writer';
import { presentSubscriber } from './subscriber.presenter';
import * as sql from './subscriber-subjects.sql';

type SubscriberEventType = 'subscriber.created' | 'subscriber.updated' | 'subscriber.unsubscribed';

/** `subscriber.created` / `.updated` / `.unsubscribed`: the subscriber as the API shows it. */
export function subscriberEvent(type: SubscriberEventType, row: Subscriber): OutboundEvent {
  return {
    type,
    occurredAt: new Date(),
    data: { ...presentSubscriber(row) },
    subscriberId: row.id,
  };
}

/** A subscriber row read with pg: pg hands bigint over as text, Prisma (and the presenter) as BigInt. */
export function fromPgRow(row: Subscriber): Subscriber {
  return { ...row, statRevenueCents: BigInt(row.statRevenueCents) };
}

/**
 * The events of a bulk write that the account's endpoints want (`wanted`): one
 * `subscriber.created` or `subscriber.updated` per subscriber the write created or changed,
 * as written, read inside the write's transaction. Unchanged, erased and failed items make none.
 */
export async function bulkWriteEvents(
  db: SqlRunner,
  accountId: AccountId,
  outcomes: BulkOutcome[],
  wanted: ReadonlySet<string>,
): Promise<OutboundEvent[]> {
  const types = new Map<string, SubscriberEventType>();
  for (const outcome of outcomes) {
    if (outcome.id === undefined) continue;
    if (outcome.status !== 'created' && outcome.status !== 'updated') continue;
    // An item that updates a subscriber an earlier item of the same write created: the
    // subscriber did not exist before the write, so it is announced once, as created.
    if (types.get(outcome.id) === 'subscriber.created') continue;
    types.set(
      outcome.id,
      outcome.status === 'created' ? 'subscriber.created' : 'subscriber.updated',
    );
  }
  for (const [id, type] of types) if (!wanted.has(type)) types.delete(id);
  if (types.size === 0) return [];
  const rows = await runSql<Subscriber>(db, sql.SUBSCRIBER_ROWS, [accountId, [...types.keys()]]);
  return rows.map((row) => subscriberEvent(types.get(row.id)!, fromPgRow(row)));
}
