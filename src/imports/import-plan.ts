import { parse } from 'csv-parse';
import { Readable } from 'node:stream';
import { restoreCell } from '../platform/csv/formula-cells';
import { IMPORT_MAX_COLUMNS } from './imports.settings';
import { CsvColumn, mapColumns } from '../subscribers/subscriber-csv';

/** How an import reads its file: the delimiter and what each column of the header holds. */
export interface ImportPlan {
  delimiter: string;
  columns: CsvColumn[];
}

/** Why a file cannot be imported as asked, said to the person who uploaded it. */
export class ImportPlanError extends Error {}

/**
 * The delimiter of a file, from its first line: a comma unless the line has none and has
 * semicolons (spreadsheets in many locales) or tabs.
 */
export function detectDelimiter(firstLine: string): string {
  if (firstLine.includes(',')) return ',';
  if (firstLine.includes(';')) return ';';
  if (firstLine.includes('\t')) return '\t';
  return ',';
}

/** The options every pass over an import's file uses, so they all see the same records. */
export function csvOptions(delimiter: string) {
  return {
    delimiter,
    bom: true,
    // A stray quote inside a cell is kept as text rather than failing the row (and the rows
    // after it, which a parser that lost track of quoting would misread).
    relax_quotes: true,
    // Short rows leave the missing cells blank; long ones are refused per row by the runner.
    relax_column_count: true,
    skip_empty_lines: true,
  } as const;
}

/**
 * Reads the header from the first bytes of an upload and maps its columns: `requested` names
 * targets for some headers (null skips one), the others are guessed.
 */
export async function planImport(
  head: Buffer,
  requested: Record<string, unknown> = {},
): Promise<ImportPlan> {
  const text = head.toString('utf8').replace(/^\uFEFF/, '');
  const delimiter = detectDelimiter(text.split(/\r?\n/, 1)[0] ?? '');
  // An export wrote formula-like headers (custom keys) with a leading quote.
  const headers = (await firstRecord(head, delimiter))?.map(restoreCell);
  if (!headers || headers.every((header) => header.trim() === '')) {
    throw new ImportPlanError('The file has no header row.');
  }
  if (headers.length > IMPORT_MAX_COLUMNS) {
    throw new ImportPlanError(
      `The file has ${headers.length} columns; at most ${IMPORT_MAX_COLUMNS}.`,
    );
  }
  const seen = new Set<string>();
  for (const header of headers) {
    if (seen.has(header)) throw new ImportPlanError(`The header names "${header}" twice.`);
    seen.add(header);
  }
  const { columns, problems } = mapColumns(headers, requested);
  if (problems.length > 0) throw new ImportPlanError(problems.join(' '));
  return { delimiter, columns };
}

async function firstRecord(head: Buffer, delimiter: string): Promise<string[] | undefined> {
  const parser = Readable.from([head]).pipe(parse({ ...csvOptions(delimiter), to: 1 }));
  try {
    for await (const record of parser as AsyncIterable<string[]>) return record;
    return undefined;
  } catch {
    throw new ImportPlanError(
      'The header row could not be read: it does not end within the first 64 KiB, or a quote is not closed.',
    );
  }
}
