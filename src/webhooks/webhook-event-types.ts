import { isOneOf } from '../platform/validation/one-of';

/** Every event an endpoint can subscribe to. */
export const WEBHOOK_EVENT_TYPES = [
  'email.sent',
  'email.delivered',
  'email.bounced',
  'email.complained',
  'email.opened',
  'email.clicked',
  'subscriber.created',
  'subscriber.updated',
  'subscriber.unsubscribed',
  'subscriber.erased',
  'campaign.sending',
  'campaign.sent',
  'campaign.paused',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const isWebhookEventType = (value: unknown): value is WebhookEventType =>
  isOneOf(WEBHOOK_EVENT_TYPES, value);

/** An event as it happened, before it is fanned out to the endpoints that want it. */
export interface OutboundEvent {
  type: WebhookEventType;
  occurredAt: Date;
  data: Record<string, unknown>;
  /** The person it is about, so that an erasure finds its deliveries. */
  subscriberId?: string | null;
  /** The erasure hash of the address it names, for mail to addresses that are no subscriber's. */
  recipientHash?: string | null;
  /**
   * The subscriber whose address goes into `data.email` (left null here) when the event's first
   * attempt is prepared; the event is not sent if the subscriber is gone by then.
   */
  emailOf?: string | null;
}
