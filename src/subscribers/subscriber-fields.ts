import type { Subscriber } from '../generated/prisma/client';

/**
 * The subscriber fields a client writes, in one table: the request DTO, the CSV import and
 * export, the SQL of bulk writes, the segment rules and the presenter all read it, so a new
 * field is one row here (and its column in the schema). Each field's API name is also its
 * column's name; `prop` is Prisma's name for it.
 *
 * Not here: `email` (its own rules: normalised, unique), `statistics` (kept apart from
 * Herald's own counters), and what Herald sets (id, counters, timestamps).
 */
export const PROFILE_FIELDS = [
  text('first_name', 'firstName', 255),
  text('last_name', 'lastName', 255),
  text('phone', 'phone', 50),
  text('address1', 'address1', 255),
  text('address2', 'address2', 255),
  text('city', 'city', 255),
  text('state', 'state', 255),
  text('zip', 'zip', 32),
  text('country_code', 'countryCode', 8),
  { name: 'birthdate', prop: 'birthdate', kind: 'date' },
  text('gender', 'gender', 50),
  text('income_level', 'incomeLevel', 50),
  text('membership_status', 'membershipStatus', 50),
  // Never null: every subscriber has a status, 'subscribed' unless a client says otherwise.
  { ...text('status', 'status', 50), empty: 'subscribed' },
  text('timezone', 'timezone', 64),
  { name: 'interests', prop: 'interests', kind: 'list' },
  { name: 'tags', prop: 'tags', kind: 'list' },
  { name: 'custom_fields', prop: 'customFields', kind: 'custom' },
  { name: 'social_media', prop: 'socialMedia', kind: 'social' },
] as const satisfies readonly ProfileField[];

export type ProfileFieldName = (typeof PROFILE_FIELDS)[number]['name'];
export type ProfileFieldProp = (typeof PROFILE_FIELDS)[number]['prop'];

/** A free-text field: at most `maxLength` characters, null clears it. */
export interface TextField {
  readonly name: string;
  readonly prop: keyof Subscriber;
  readonly kind: 'text';
  readonly maxLength: number;
  /** A new subscriber's value when the client gives none (else null). */
  readonly empty?: string;
}

/**
 * A point in time (stored as timestamptz), a list of strings, the client's own JSON object
 * (keys of its own in CSV, not one column), or the social profiles (JSON in CSV).
 */
export interface OtherField {
  readonly name: string;
  readonly prop: keyof Subscriber;
  readonly kind: 'date' | 'list' | 'custom' | 'social';
}

export type ProfileField = TextField | OtherField;

export const TEXT_FIELDS: readonly TextField[] = PROFILE_FIELDS.filter(
  (field): field is Extract<(typeof PROFILE_FIELDS)[number], { kind: 'text' }> =>
    field.kind === 'text',
);

/** The text field of this name (the DTO's decorators name only fields that exist). */
export function textField(name: ProfileFieldName): TextField {
  const field = TEXT_FIELDS.find((candidate) => candidate.name === name);
  if (!field) throw new Error(`${name} is not a text field of PROFILE_FIELDS`);
  return field;
}

/** A new subscriber's profile before the client's fields: the columns' defaults, by prop. */
export function emptyProfile(): Pick<Subscriber, ProfileFieldProp> {
  const empty: Record<string, unknown> = {};
  for (const field of PROFILE_FIELDS as readonly ProfileField[]) {
    if (field.kind === 'text') empty[field.prop] = field.empty ?? null;
    else if (field.kind === 'date') empty[field.prop] = null;
    else empty[field.prop] = field.kind === 'custom' ? {} : [];
  }
  return empty as Pick<Subscriber, ProfileFieldProp>;
}

function text<N extends string, P extends keyof Subscriber>(name: N, prop: P, maxLength: number) {
  return { name, prop, kind: 'text', maxLength } as const;
}
