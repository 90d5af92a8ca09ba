import { copyText, copyTextArray } from '../platform/database/copy-from';
import { PROFILE_FIELDS, ProfileField } from './subscriber-fields';
import type { CreateSubscriberDto } from './subscriber.dto';

/**
 * A batch of validated writes as the lines of a COPY into the staging table (subscribers.sql.ts
 * STAGE), which one statement then decides and writes (`SubscriberBulkWriter.writeStaged`).
 * A line holds the row's position, the id it gets if it is new, its identity (erasure hash,
 * email as written and normalised) and one value per profile field: `\N` for a field the item
 * leaves alone, else the value as the column stores it (what `toColumns` makes of the body).
 */

/** The profile fields of a staged line, in its order (after position, id, hash and emails). */
export const STAGE_FIELDS: readonly ProfileField[] = PROFILE_FIELDS;

/** A staged field the item leaves as it is. */
export const ABSENT = '\\N';

/** Where each profile field's value goes in the array `stageLine` takes. */
export const STAGE_FIELD_INDEX: ReadonlyMap<string, number> = new Map(
  STAGE_FIELDS.map((field, index) => [field.name, index]),
);

/** A row's line: `fields` are encoded already (`ABSENT`, `copyText`…), in STAGE_FIELDS order. */
export function stageLine(
  position: number,
  id: string,
  hash: string,
  email: string,
  emailNormalized: string,
  fields: readonly string[],
): string {
  return `${position}\t${id}\t${hash}\t${copyText(email)}\t${copyText(emailNormalized)}\t${fields.join('\t')}`;
}

/** A list field's value: items as a text[] (null clears the list, as `toColumns` has it). */
export function stageList(items: readonly string[] | null): string {
  return copyTextArray(items ?? []);
}

/**
 * The staged field values of a validated body, or undefined when it holds what a staged write
 * does not carry (statistics, a custom_fields of null, a text field cleared with null: a CSV row
 * never does either); the caller writes such an item the other way.
 */
export function stageFields(body: CreateSubscriberDto): string[] | undefined {
  if (body.statistics !== undefined) return undefined;
  const fields = new Array<string>(STAGE_FIELDS.length).fill(ABSENT);
  const values = body as unknown as Record<string, unknown>;
  for (let index = 0; index < STAGE_FIELDS.length; index++) {
    const field = STAGE_FIELDS[index];
    const value = values[field.name];
    if (value === undefined) continue;
    switch (field.kind) {
      case 'text':
        if (typeof value !== 'string') return undefined;
        fields[index] = copyText(value);
        break;
      case 'date':
        if (typeof value !== 'string') return undefined;
        fields[index] = new Date(value).toISOString();
        break;
      case 'list':
        fields[index] = stageList(value as string[] | null);
        break;
      case 'custom':
        if (value === null) return undefined;
        fields[index] = copyText(JSON.stringify(value));
        break;
      case 'social': {
        const items = (value ?? []) as { platform: string; profile_id: string }[];
        const kept = items.map(({ platform, profile_id }) => ({ platform, profile_id }));
        fields[index] = copyText(JSON.stringify(kept));
        break;
      }
    }
  }
  return fields;
}

/**
 * A staged row read back (subscribers.sql.ts STAGED_ROWS) as the body that made it: the row
 * the staged statement left to the writer (`deferred`) is written from this.
 */
export function bodyOfStagedRow(row: Record<string, unknown>): CreateSubscriberDto {
  const body: Record<string, unknown> = { email: row.email };
  for (const field of STAGE_FIELDS) {
    const value = row[field.name];
    if (value === null || value === undefined) continue;
    body[field.name] = field.kind === 'date' ? (value as Date).toISOString() : value;
  }
  return body as unknown as CreateSubscriberDto;
}

/** The lines of one batch, as they are added. */
export class StagedBatch {
  private readonly lines: string[] = [];

  add(line: string): void {
    this.lines.push(line);
  }

  get size(): number {
    return this.lines.length;
  }

  /** COPY's text: every line, each ended. */
  text(): string {
    return this.lines.length === 0 ? '' : `${this.lines.join('\n')}\n`;
  }
}
