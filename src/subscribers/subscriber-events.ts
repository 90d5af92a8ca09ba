import { Subscriber } from '../generated/prisma/client';
import type { OutboundEvent } from '../webhooks/webhook-event-types';
import { presentSubscriber } from './subscriber.presenter';

/** `subscriber.created` / `subscriber.updated`: the subscriber as the API shows it. */
export function subscriberEvent(
  type: 'subscriber.created' | 'subscriber.updated',
  row: Subscriber,
): OutboundEvent {
  return {
    type,
    occurredAt: new Date(),
    data: { ...presentSubscriber(row) },
    subscriberId: row.id,
  };
}
