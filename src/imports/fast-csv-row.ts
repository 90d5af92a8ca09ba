import { restoreCell } from '../platform/csv/formula-cells';
import { CUSTOM_PREFIX, CsvColumn, parseCustomCell } from '../subscribers/subscriber-csv';
import { PROFILE_FIELDS } from '../subscribers/subscriber-fields';
import { StageShape, stageList } from '../subscribers/subscriber-stage';
import { copyText } from '../platform/database/copy-from';
import { CUSTOM_FIELDS } from '../subscribers/subscriber-limits';

/**
 * The common CSV row straight to its staged field values, without the body, the DTO instance
 * and class-validator's constraint functions that `recordToBody` and `QuickDtoCheck` go
 * through: a plain ASCII email, text cells within their lengths, lists of short items, custom
 * cells that are text, numbers, booleans or null. Such a row is accepted by the API's DTO with
 * exactly these values; anything else (a long cell, JSON in a cell, a date, social profiles, a
 * character that needs a closer look, an email outside the plain form) gets `undefined`, and
 * the row takes the general way, whose checks and messages are the DTO's. So, like QuickDtoCheck,
 * it only ever accepts, and what it accepts the general way accepts with the same staged line
 * (a differential test, fast-csv-row.spec.ts, holds it to that).
 */

/**
 * Emails the DTO's IsEmail (validator.js, default options) surely accepts: dot-separated atoms of
 * its ASCII local-part characters, then two or more labels of letters, digits and inner hyphens
 * ending in a top-level label of two to 63 letters. Lengths are checked apart (254 in all, 64
 * before the @, 63 per label, as IsEmail and MaxLength(254) have them).
 */
const PLAIN_EMAIL =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

/**
 * A character that needs a closer look than length and type: NUL and surrogates (invalid text
 * when unpaired; a pair counts as one character in MaxLength), and the variation selectors
 * MaxLength does not count.
 */
const LOOK_CLOSER = /\0|[\uD800-\uDFFF]|\uFE0E|\uFE0F/;

/** LOOK_CLOSER, or a character COPY's text format escapes: a cell without any is used as it is. */
const NOT_PLAIN = /\0|[\\\t\n\r\uD800-\uDFFF]|\uFE0E|\uFE0F/;

const LIST_ITEMS = 100;
const LIST_ITEM_LENGTH = 100;
/** Text of the fields the DTO accepts and Herald ignores (id, created_at, updated_at). */
const IGNORED_LENGTH = 255;

type Column =
  | { kind: 'skip' }
  | { kind: 'email' }
  | { kind: 'text'; index: number; maxLength: number }
  | { kind: 'list'; index: number }
  | { kind: 'custom'; key: string }
  | { kind: 'ignored' }
  /** A field this path does not model (a date, social profiles): a row with it goes the other way. */
  | { kind: 'other' };

const TEXT_LENGTH = new Map<string, number>(
  PROFILE_FIELDS.flatMap((field) =>
    field.kind === 'text' ? [[field.name, field.maxLength] as const] : [],
  ),
);

export interface FastRow {
  /** The email cell, trimmed as the DTO's transform does. */
  email: string;
  /** Staged field values, in the order of `shape`. */
  fields: string[];
}

export class FastCsvRows {
  /** The fields an import of these columns can set: those its staged lines carry. */
  readonly shape: StageShape;
  private readonly columns: Column[];
  private readonly customIndex: number | undefined;

  constructor(columns: readonly CsvColumn[]) {
    this.shape = new StageShape(
      columns.flatMap(({ target }) =>
        target === null ? [] : [target.startsWith(CUSTOM_PREFIX) ? 'custom_fields' : target],
      ),
    );
    this.customIndex = this.shape.indexOf('custom_fields');
    this.columns = columns.map(({ target }) => columnOf(target, this.shape));
    const customKeys = this.columns.filter((column) => column.kind === 'custom').length;
    // More custom columns than custom_fields may have keys: any row could pass the limit.
    if (customKeys > CUSTOM_FIELDS.maxKeys)
      this.columns = this.columns.map(() => ({ kind: 'other' }));
  }

  /** The row's email and staged fields, or undefined to take the general way. */
  accept(record: readonly string[]): FastRow | undefined {
    const fields = this.shape.emptyValues();
    let email: string | undefined;
    let custom: Record<string, unknown> | undefined;
    const columns = this.columns;
    for (let index = 0; index < columns.length; index++) {
      const column = columns[index];
      if (column.kind === 'skip') continue;
      const raw = record[index];
      if (raw === undefined) continue;
      const cell = restoreCell(raw);
      if (cell.trim() === '') continue;
      const plain = !NOT_PLAIN.test(cell);
      if (!plain && LOOK_CLOSER.test(cell)) return undefined;
      switch (column.kind) {
        case 'email': {
          const trimmed = cell.trim();
          const at = trimmed.indexOf('@');
          if (trimmed.length > 254 || at > 64 || !PLAIN_EMAIL.test(trimmed)) return undefined;
          email = trimmed;
          break;
        }
        case 'text':
          if (cell.length > column.maxLength) return undefined;
          fields[column.index] = plain ? cell : copyText(cell);
          break;
        case 'list': {
          if (cell.trimStart().startsWith('[')) return undefined;
          const items = cell
            .split(',')
            .map((item) => item.trim())
            .filter((item) => item.length > 0);
          if (items.length > LIST_ITEMS) return undefined;
          for (const item of items) if (item.length > LIST_ITEM_LENGTH) return undefined;
          fields[column.index] = stageList(items);
          break;
        }
        case 'custom': {
          const first = cell[0];
          // JSON objects, lists and strings are left to the DTO's checks.
          if (first === '{' || first === '[' || first === '"') return undefined;
          custom ??= {};
          custom[column.key] = parseCustomCell(cell);
          break;
        }
        case 'ignored':
          if (cell.length > IGNORED_LENGTH) return undefined;
          break;
        default:
          return undefined;
      }
    }
    if (email === undefined) return undefined;
    if (custom) {
      const json = JSON.stringify(custom);
      // JSON escapes control characters: printable ASCII is one byte a character; otherwise
      // the bytes are counted as the DTO counts them.
      const bytes = /^[ -~]*$/.test(json) ? json.length : Buffer.byteLength(json, 'utf8');
      if (bytes > CUSTOM_FIELDS.maxBytes) return undefined;
      fields[this.customIndex!] = copyText(json);
    }
    return { email, fields };
  }
}

function columnOf(target: CsvColumn['target'], shape: StageShape): Column {
  if (target === null) return { kind: 'skip' };
  if (target === 'email') return { kind: 'email' };
  if (target === 'id' || target === 'created_at' || target === 'updated_at') {
    return { kind: 'ignored' };
  }
  if (target.startsWith(CUSTOM_PREFIX)) {
    const key = target.slice(CUSTOM_PREFIX.length);
    // A key with characters to look closer at: its rows go the other way.
    return LOOK_CLOSER.test(key) ? { kind: 'other' } : { kind: 'custom', key };
  }
  const index = shape.indexOf(target);
  const field = index === undefined ? undefined : shape.fields[index];
  if (index === undefined || !field) return { kind: 'other' };
  if (field.kind === 'text') return { kind: 'text', index, maxLength: TEXT_LENGTH.get(target)! };
  if (field.kind === 'list') return { kind: 'list', index };
  return { kind: 'other' };
}
