import { Prisma } from '../generated/prisma/client';
import { normalizeEmail } from '../platform/crypto/keyed-hasher';
import { SubscriberProfileDto } from './subscriber.dto';

type Columns = Prisma.SubscriberUncheckedUpdateInput;

/** Text fields and their columns. */
const TEXT_COLUMNS: readonly (readonly [keyof SubscriberProfileDto, keyof Columns])[] = [
  ['first_name', 'firstName'],
  ['last_name', 'lastName'],
  ['phone', 'phone'],
  ['address1', 'address1'],
  ['address2', 'address2'],
  ['city', 'city'],
  ['state', 'state'],
  ['zip', 'zip'],
  ['country_code', 'countryCode'],
  ['gender', 'gender'],
  ['income_level', 'incomeLevel'],
  ['membership_status', 'membershipStatus'],
  ['timezone', 'timezone'],
  ['status', 'status'],
];

/**
 * Turns the fields a client sent into column values. Absent fields are left alone; `null`
 * clears a field (lists and objects to empty). Free-form request `statistics` are merged
 * into imported_stats; the response statistics stay Herald's own counters.
 */
export function toColumns(
  body: SubscriberProfileDto & { email?: string },
  importedStats: Prisma.JsonObject = {},
): Columns {
  const columns: Columns = {};
  if (body.email !== undefined) {
    columns.email = body.email.trim();
    columns.emailNormalized = normalizeEmail(body.email);
  }
  for (const [field, column] of TEXT_COLUMNS) {
    if (body[field] !== undefined) (columns as Record<string, unknown>)[column] = body[field];
  }
  if (body.birthdate !== undefined) {
    columns.birthdate = body.birthdate === null ? null : new Date(body.birthdate);
  }
  if (body.interests !== undefined) columns.interests = body.interests ?? [];
  if (body.tags !== undefined) columns.tags = body.tags ?? [];
  if (body.custom_fields !== undefined) {
    columns.customFields = (body.custom_fields ?? {}) as Prisma.InputJsonObject;
  }
  if (body.social_media !== undefined) {
    const items = (body.social_media ?? []).map(({ platform, profile_id }) => ({
      platform,
      profile_id,
    }));
    columns.socialMedia = items;
  }
  if (body.statistics !== undefined) {
    columns.importedStats = (
      body.statistics === null ? {} : { ...importedStats, ...body.statistics }
    ) as Prisma.InputJsonObject;
  }
  return columns;
}
