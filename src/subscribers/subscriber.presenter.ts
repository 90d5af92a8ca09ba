import { Subscriber } from '../generated/prisma/client';
import type { SubscriberResponse } from './subscriber-response.dto';
import { PROFILE_FIELDS, ProfileField, ProfileFieldName } from './subscriber-fields';

export type { SubscriberResponse } from './subscriber-response.dto';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

type ProfileValues = Pick<SubscriberResponse, ProfileFieldName>;

/** A profile field as the API shows it: dates as ISO text, the rest as stored. */
function presentField(field: ProfileField, row: Subscriber): unknown {
  return field.kind === 'date' ? iso(row[field.prop] as Date | null) : row[field.prop];
}

export function presentSubscriber(row: Subscriber): SubscriberResponse {
  return {
    id: row.id,
    email: row.email,
    ...(Object.fromEntries(
      PROFILE_FIELDS.map((field) => [field.name, presentField(field, row)]),
    ) as ProfileValues),
    statistics: {
      sent: row.statSent,
      delivered: row.statDelivered,
      opens: row.statOpens,
      clicks: row.statClicks,
      hard_bounces: row.statHardBounces,
      soft_bounces: row.statSoftBounces,
      revenue_cents: Number(row.statRevenueCents),
      last_sent_at: iso(row.lastSentAt),
      last_open_at: iso(row.lastOpenAt),
      last_click_at: iso(row.lastClickAt),
    },
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
