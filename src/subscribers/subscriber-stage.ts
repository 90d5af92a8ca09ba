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

/** The profile fields a staged line may carry (after position, id, hash and emails). */
export const STAGE_FIELDS: readonly ProfileField[] = PROFILE_FIELDS;

/** A staged field the item leaves as it is. */
export const ABSENT = '\\N';

/**
 * The profile fields the lines of a batch carry, in STAGE_FIELDS order: those an import's
 * columns can set, so a line holds no column that would always be `\N` (the staging table's
 * others stay NULL).
 */
export class StageShape {
  readonly fields: readonly ProfileField[];
  private readonly indexes: ReadonlyMap<string, number>;

  constructor(names: Iterable<string>) {
    const wanted = new Set(names);
    this.fields = STAGE_FIELDS.filter((field) => wanted.has(field.name));
    this.indexes = new Map(this.fields.map((field, index) => [field.name, index]));
  }

  /** Where a field's value goes in a line's values; undefined when the shape lacks it. */
  indexOf(name: string): number | undefined {
    return this.indexes.get(name);
  }

  /** Values of a line that sets nothing yet. */
  emptyValues(): string[] {
    return new Array<string>(this.fields.length).fill(ABSENT);
  }
}

/** A row's line: `values` are encoded already (`ABSENT`, `copyText`…), in its shape's order. */
export function stageLine(
  position: number,
  id: string,
  hash: string,
  email: string,
  emailNormalized: string,
  values: readonly string[],
): string {
  return `${position}\t${id}\t${hash}\t${copyText(email)}\t${copyText(emailNormalized)}\t${values.join('\t')}`;
}

/** A list field's value: items as a text[] (null clears the list, as `toColumns` has it). */
export function stageList(items: readonly string[] | null): string {
  return copyTextArray(items ?? []);
}

/**
 * The staged values of a validated body, in `shape`'s order, or undefined when it holds what
 * a staged line does not carry (statistics, a field outside the shape, a custom_fields of null,
 * a text field cleared with null: a CSV row never does these); the caller writes such an item
 * the other way.
 */
export function stageFields(body: CreateSubscriberDto, shape: StageShape): string[] | undefined {
  if (body.statistics !== undefined) return undefined;
  const values = shape.emptyValues();
  const fields = body as unknown as Record<string, unknown>;
  for (const field of STAGE_FIELDS) {
    const value = fields[field.name];
    if (value === undefined) continue;
    const index = shape.indexOf(field.name);
    if (index === undefined) return undefined;
    switch (field.kind) {
      case 'text':
        if (typeof value !== 'string') return undefined;
        values[index] = copyText(value);
        break;
      case 'date':
        if (typeof value !== 'string') return undefined;
        values[index] = new Date(value).toISOString();
        break;
      case 'list':
        values[index] = stageList(value as string[] | null);
        break;
      case 'custom':
        if (value === null) return undefined;
        values[index] = copyText(JSON.stringify(value));
        break;
      case 'social': {
        const items = (value ?? []) as { platform: string; profile_id: string }[];
        const kept = items.map(({ platform, profile_id }) => ({ platform, profile_id }));
        values[index] = copyText(JSON.stringify(kept));
        break;
      }
    }
  }
  return values;
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

/**
 * The lines of one batch, as they are added, and the fields they carry. Each line is written
 * out as UTF-8 at once, so its string (and the cells it was made of) dies young: kept as
 * strings until the batch is written, a thousand lines outlived a scavenge or two of the
 * worker's small young generation and were copied to the old one, which then needed
 * collecting in full.
 */
export class StagedBatch {
  private bytes = Buffer.allocUnsafe(64 * 1024);
  private length = 0;
  private lines = 0;

  constructor(readonly shape: StageShape) {}

  add(line: string): void {
    // UTF-8 takes at most three bytes per UTF-16 unit; the newline one more.
    const needed = this.length + line.length * 3 + 1;
    if (needed > this.bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(needed, this.bytes.length * 2));
      this.bytes.copy(grown, 0, 0, this.length);
      this.bytes = grown;
    }
    this.length += this.bytes.write(line, this.length);
    this.bytes[this.length++] = 0x0a;
    this.lines++;
  }

  get size(): number {
    return this.lines;
  }

  /** COPY's data: every line, each ended. */
  data(): Buffer {
    return this.bytes.subarray(0, this.length);
  }
}
