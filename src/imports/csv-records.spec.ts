import { CsvError, Options, parse } from 'csv-parse';
import { Readable } from 'node:stream';
import { IMPORT_MAX_RECORD_BYTES } from './imports.settings';
import { CsvItem, csvBatches } from './csv-records';
import { csvOptions } from './import-plan';

/**
 * The plain way to number records: the parser's own hooks, called in the order it meets them.
 * csvBatches avoids the per-record hook for speed and must number exactly like this.
 */
async function numberedByHooks(chunks: Buffer[], delimiter: string): Promise<string[]> {
  let next = 0;
  const seen: string[] = [];
  const parser = parse({
    ...csvOptions(delimiter),
    max_record_size: IMPORT_MAX_RECORD_BYTES,
    skip_records_with_error: true,
    on_record: (record: string[]) => {
      seen.push(`${next++}:${record.join('|')}`);
      return record;
    },
    on_skip: (error: CsvError | undefined) => {
      seen.push(`${next++}:skip ${error?.code}`);
      return undefined;
    },
  } as Options);
  Readable.from(chunks).pipe(parser);
  for await (const record of parser as AsyncIterable<unknown>) void record;
  return seen.filter((entry) => !entry.startsWith('0:'));
}

function describeItem(item: CsvItem): string {
  return 'cells' in item ? `${item.row}:${item.cells.join('|')}` : `${item.row}:skip`;
}

describe('csvBatches', () => {
  it('numbers records and unreadable stretches as the parser meets them, in batches', async () => {
    let state = 5;
    const random = (below: number) => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state % below;
    };
    for (let round = 0; round < 300; round++) {
      const lines = ['email,name'];
      for (let row = random(40); row > 0; row--) {
        const kind = random(12);
        if (kind === 0) lines.push('"never closed');
        else if (kind === 1) lines.push('');
        else if (kind === 2) lines.push(`"a ""quoted""\nline",b`);
        else lines.push(`r${row}@x.example,${'n'.repeat(random(5))}`);
      }
      const bytes = Buffer.from(`${lines.join('\n')}\n`);
      const chunks: Buffer[] = [];
      for (let at = 0; at < bytes.length;) {
        const size = 1 + random(64);
        chunks.push(bytes.subarray(at, at + size));
        at += size;
      }
      const expected = (await numberedByHooks(chunks, ',')).map((entry) =>
        entry.replace(/skip .*$/, 'skip'),
      );
      const batches: CsvItem[][] = [];
      for await (const batch of csvBatches(Readable.from(chunks), ',', 1 + random(5))) {
        batches.push(batch);
      }
      expect(batches.flat().map(describeItem)).toEqual(expected);
    }
  });
});

describe('csvBatches with records over the size limit', () => {
  it('refuses each one alone, in its place, and reads every record after it', async () => {
    let state = 11;
    const random = (below: number) => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state % below;
    };
    const limit = 40;
    for (let round = 0; round < 400; round++) {
      const newline = random(2) === 0 ? '\n' : '\r\n';
      const lines = ['email,name'];
      const records: { line: number; written: string; cells: string }[] = [];
      for (let record = random(30); record > 0; record--) {
        if (random(8) === 0) {
          lines.push(''); // an empty line is no record
          continue;
        }
        const cells = Array.from({ length: 1 + random(3) }, (_, index) => {
          const text = 'x'.repeat(random(index === 0 ? 25 : 12) + (index === 0 ? 1 : 0));
          return random(3) === 0
            ? { text: `${text}"${newline}"`, quoted: true }
            : { text, quoted: false };
        });
        const written = cells
          .map(({ text, quoted }) => (quoted ? `"${text.replace(/"/g, '""')}"` : text))
          .join(',');
        records.push({
          line: lines.length,
          written,
          cells: cells.map(({ text }) => text).join('|'),
        });
        lines.push(written);
      }
      // The last record ends the file or a line, as either happens.
      const endsWithNewline = random(2) === 0;
      const bytes = Buffer.from(lines.join(newline) + (endsWithNewline ? newline : ''));
      const expected = records.map(({ line, written, cells }, index) => {
        const ended = endsWithNewline || line < lines.length - 1;
        const size = Buffer.byteLength(ended ? written + newline : written);
        return size > limit ? `${index + 1}:too long` : `${index + 1}:${cells}`;
      });
      const chunks: Buffer[] = [];
      for (let at = 0; at < bytes.length;) {
        const size = 1 + random(70);
        chunks.push(bytes.subarray(at, at + size));
        at += size;
      }
      const seen: string[] = [];
      for await (const batch of csvBatches(Readable.from(chunks), ',', 1 + random(5), limit)) {
        for (const item of batch) {
          seen.push('cells' in item ? describeItem(item) : `${item.row}:too long`);
          if ('problem' in item) expect(item.problem).toBe('This row is longer than 40 bytes.');
        }
      }
      expect(seen).toEqual(expected);
    }
  });
});
