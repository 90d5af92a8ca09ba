import { Prisma } from '../generated/prisma/client';
import { normalizeEmail } from '../platform/crypto/keyed-hasher';
import { SubscriberProfileDto } from './subscriber.dto';
import { TEXT_FIELDS } from './subscriber-fields';

type Columns = Prisma.SubscriberUncheckedUpdateInput;

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
  for (const { name, prop } of TEXT_FIELDS) {
    const value = body[name as keyof SubscriberProfileDto];
    if (value !== undefined) (columns as Record<string, unknown>)[prop] = value;
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
