import { CsvError, Options, parse } from 'csv-parse';
import type { Readable } from 'node:stream';
import { IMPORT_MAX_RECORD_BYTES } from '../platform/settings';
import { csvOptions } from './import-plan';

/** A data record of the file, or a stretch the parser had to skip, numbered from 1 after the header. */
export type CsvItem = { row: number; cells: string[] } | { row: number; problem: string };

/**
 * The data rows of an import's file, in order, in batches of `size` as the consumer asks (the
 * file is read no faster than batches are written). Every record gets the number it has in the
 * file, counting from 1 after the header; a record the parser cannot read (over 64 KiB, broken
 * quoting) keeps its number and comes out as a problem, and the file goes on. Records are taken
 * from the parser a buffer at a time, not through an async iterator per record, whose promise
 * per row cost a third of the parsing itself.
 */
export async function* csvBatches(
  source: Readable,
  delimiter: string,
  size: number,
): AsyncGenerator<CsvItem[]> {
  // Records and skips are numbered as the parser meets them; skips cannot travel in the
  // parser's output, so they wait here until the consumer reaches their number.
  let next = 0;
  const skipped: CsvItem[] = [];
  const options: Options<{ row: number; cells: string[] }, string[]> = {
    ...csvOptions(delimiter),
    max_record_size: IMPORT_MAX_RECORD_BYTES,
    skip_records_with_error: true,
    on_record: (record: string[]) => ({ row: next++, cells: record }),
    on_skip: (error: CsvError | undefined) => {
      skipped.push({ row: next++, problem: describe(error) });
      return undefined;
    },
  };
  // The typings tie on_record's result to the record type; it may be anything.
  const parser = parse(options as unknown as Options);
  let ended = false;
  let failure: Error | undefined;
  let wake = () => {};
  parser.on('readable', () => wake());
  parser.on('end', () => {
    ended = true;
    wake();
  });
  parser.on('error', (error: Error) => {
    failure = error;
    wake();
  });
  source.on('error', (error) => parser.destroy(error));
  source.pipe(parser);
  let batch: CsvItem[] = [];
  for (;;) {
    let item: { row: number; cells: string[] } | null;
    while ((item = parser.read() as typeof item) !== null) {
      while (skipped.length > 0 && skipped[0].row < item.row) batch.push(skipped.shift()!);
      // Row 0 is the header, read when the import was planned.
      if (item.row > 0) batch.push(item);
      if (batch.length >= size) {
        yield batch;
        batch = [];
      }
    }
    if (failure !== undefined) throw failure;
    if (ended) break;
    await new Promise<void>((resolve) => (wake = resolve));
  }
  for (const item of skipped) if (item.row > 0) batch.push(item);
  if (batch.length > 0) yield batch;
}

function describe(error: CsvError | undefined): string {
  const code = error?.code;
  if (code === 'CSV_MAX_RECORD_SIZE') {
    return `This row is longer than ${IMPORT_MAX_RECORD_BYTES / 1024} KiB.`;
  }
  if (code === 'CSV_QUOTE_NOT_CLOSED') return 'A quote opened in this row is never closed.';
  return 'This row could not be read as CSV.';
}
