import { CsvError, Options, parse } from 'csv-parse';
import type { Readable } from 'node:stream';
import { IMPORT_MAX_RECORD_BYTES } from './imports.settings';
import { CsvRecordGuard } from './csv-record-guard';
import { csvOptions } from './import-plan';

/** A data record of the file, or a stretch the parser had to skip, numbered from 1 after the header. */
export type CsvItem = { row: number; cells: string[] } | { row: number; problem: string };

/**
 * The data rows of an import's file, in order, in batches of `size` as the consumer asks (the
 * file is read no faster than batches are written). Every record gets the number it has in the
 * file, counting from 1 after the header; a record that cannot be read (over `maxRecordBytes`,
 * broken quoting) keeps its number and comes out as a problem, and the file goes on. Records
 * are bounded before the parser sees them (`CsvRecordGuard`). Records are taken
 * from the parser a buffer at a time, not through an async iterator per record, whose promise
 * per row cost a third of the parsing itself.
 */
export async function* csvBatches(
  source: Readable,
  delimiter: string,
  size: number,
  maxRecordBytes = IMPORT_MAX_RECORD_BYTES,
): AsyncGenerator<CsvItem[]> {
  // Records and skips are numbered in the order the parser meets them. A skip cannot travel in
  // the parser's output: it is noted with the number of records the parser had put out before
  // it, and takes its place when the consumer gets there. (Numbering records in the parser's
  // on_record hook made it build an info object per record: a tenth of the parsing cost.)
  const skips: { before: number; problem: string }[] = [];
  const guard = new CsvRecordGuard(delimiter, maxRecordBytes);
  const tooLong = `This row is longer than ${formatBytes(maxRecordBytes)}.`;
  const options: Options = {
    ...csvOptions(delimiter),
    // The guard keeps records far below this; past it, csv-parse would silently lose the rest
    // of the file, so the import fails instead.
    max_record_size: 2 * maxRecordBytes,
    skip_records_with_error: true,
    on_skip: (error: CsvError | undefined) => {
      if (error?.code === 'CSV_MAX_RECORD_SIZE') throw error;
      skips.push({ before: parser.info.records, problem: describe(error) });
      return undefined;
    },
  };
  const parser = parse(options);
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
  source.on('error', (error) => guard.destroy(error));
  guard.on('error', (error) => parser.destroy(error));
  source.pipe(guard).pipe(parser);
  let batch: CsvItem[] = [];
  let records = 0; // taken from the parser, the header included
  let skipped = 0;
  const takeSkipsBefore = (record: number) => {
    while (skips.length > 0 && skips[0].before <= record) {
      const { before, problem } = skips.shift()!;
      const row = before + skipped++;
      if (row > 0) batch.push({ row, problem });
    }
  };
  for (;;) {
    let cells: string[] | null;
    while ((cells = parser.read() as string[] | null) !== null) {
      takeSkipsBefore(records);
      const row = records++ + skipped;
      // Row 0 is the header, read when the import was planned.
      if (row === 0) continue;
      if (cells.length === 1 && cells[0] === guard.marker) batch.push({ row, problem: tooLong });
      else batch.push({ row, cells });
      if (batch.length >= size) {
        yield batch;
        batch = [];
      }
    }
    if (failure !== undefined) throw failure;
    if (ended) break;
    await new Promise<void>((resolve) => (wake = resolve));
  }
  takeSkipsBefore(Infinity);
  if (batch.length > 0) yield batch;
}

function formatBytes(bytes: number): string {
  return bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
}

function describe(error: CsvError | undefined): string {
  const code = error?.code;
  if (code === 'CSV_QUOTE_NOT_CLOSED') return 'A quote opened in this row is never closed.';
  return 'This row could not be read as CSV.';
}
