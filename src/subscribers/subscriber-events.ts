import { Subscriber } from '../generated/prisma/client';
import type { AccountId } from '../platform/database/account-id';
import { runSql, SqlRunner } from '../platform/database/sql-runner';
import type { OutboundEvent } from '../webhooks/webhook-event-types';
import type { BulkOutcome } from './subscriber-bulk-outcome';
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
 * Which events a bulk write publishes: every change, as single writes do (a batch upsert), or
 * only the changes to `unsubscribed` (an import), which are announced whoever makes them.
 */
export type BulkAnnouncements = 'changes' | 'unsubscribes';

/**
 * The events of a bulk write that the account's endpoints want (`wanted`): one
 * `subscriber.created` or `subscriber.updated` per subscriber the write created or changed
 * (with `changes`), and one `subscriber.unsubscribed` per existing subscriber it changed to
 * `unsubscribed` and left so, as written, read inside the write's transaction (whose row locks
 * keep a concurrent unsubscribe from announcing the same change). Unchanged, erased and failed
 * items make none.
 */
export async function bulkWriteEvents(
  db: SqlRunner,
  accountId: AccountId,
  outcomes: BulkOutcome[],
  wanted: ReadonlySet<string>,
  announce: BulkAnnouncements,
): Promise<OutboundEvent[]> {
  const types = new Map<string, SubscriberEventType>();
  const unsubscribed = new Set<string>();
  for (const outcome of outcomes) {
    if (outcome.id === undefined) continue;
    if (outcome.status !== 'created' && outcome.status !== 'updated') continue;
    if (outcome.unsubscribed) unsubscribed.add(outcome.id);
    if (announce !== 'changes') continue;
    // An item that updates a subscriber an earlier item of the same write created: the
    // subscriber did not exist before the write, so it is announced once, as created.
    if (types.get(outcome.id) === 'subscriber.created') continue;
    types.set(
      outcome.id,
      outcome.status === 'created' ? 'subscriber.created' : 'subscriber.updated',
    );
  }
  for (const [id, type] of types) if (!wanted.has(type)) types.delete(id);
  if (!wanted.has('subscriber.unsubscribed')) unsubscribed.clear();
  const ids = new Set([...types.keys(), ...unsubscribed]);
  if (ids.size === 0) return [];
  const rows = await runSql<Subscriber>(db, sql.SUBSCRIBER_ROWS, [accountId, [...ids]]);
  return rows.flatMap((pgRow) => {
    const row = fromPgRow(pgRow);
    const type = types.get(row.id);
    const events = type ? [subscriberEvent(type, row)] : [];
    if (unsubscribed.has(row.id) && row.status === 'unsubscribed') {
      events.push(subscriberEvent('subscriber.unsubscribed', row));
    }
    return events;
  });
}
