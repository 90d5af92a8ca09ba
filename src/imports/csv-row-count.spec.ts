import { Readable } from 'node:stream';
import { randomness, Random } from '../../test/support/seeded-random';
import { csvBatches } from './csv-records';
import { CsvRowCounter } from './csv-row-count';
import { detectDelimiter } from './import-plan';

/** A cell as a spreadsheet writes it: plain, or quoted with doubled quotes, line breaks, delimiters. */
function cell(random: Random, delimiter: string, newline: string, wellFormed: boolean): string {
  const text = random.pick(['ann', 'Zoë', '', ' ', 'a b', '42', '😀']);
  const kind = random.int(wellFormed ? 4 : 7);
  if (kind === 0) return `"${text}${delimiter}${text}"`;
  if (kind === 1) return `"line${newline}break ""quoted"""`;
  if (kind === 2) return `""`;
  if (kind === 3) return text;
  if (kind === 4) return `a"b`; // a quote inside an unquoted cell: kept as text
  if (kind === 5) return `"closed"then text`;
  return `"never closed`;
}

function file(random: Random, wellFormed: boolean): string {
  const delimiter = random.pick([',', ';', '\t']);
  const newline = random.pick(['\n', '\r\n']);
  const width = 1 + random.int(4);
  const header = Array.from({ length: width }, (_, i) => `h${i}`).join(delimiter);
  const lines = [header];
  for (let row = random.int(30); row > 0; row--) {
    if (random.next() < 0.1) {
      lines.push('');
      continue;
    }
    const cells = Array.from(
      { length: width + random.int(2) - (random.next() < 0.2 ? 1 : 0) },
      () => cell(random, delimiter, newline, wellFormed),
    );
    lines.push(cells.join(delimiter));
  }
  const bom = random.next() < 0.2 ? '\uFEFF' : '';
  const end = random.pick([newline, '', newline + newline]);
  return bom + lines.join(newline) + end;
}

function chunked(random: Random, bytes: Buffer): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length;) {
    const size = 1 + random.int(random.next() < 0.5 ? 8 : 200);
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

async function parsedRows(chunks: Buffer[], delimiter: string): Promise<number> {
  let last = 0;
  for await (const batch of csvBatches(Readable.from(chunks), delimiter, 7)) {
    last = batch[batch.length - 1].row;
  }
  return last;
}

function counted(chunks: Buffer[]): number {
  const counter = new CsvRowCounter();
  for (const chunk of chunks) counter.push(chunk);
  return counter.finish();
}

describe('CsvRowCounter', () => {
  it('finds the rows the parser finds in well-formed files, whatever the chunking', async () => {
    const random = randomness(77);
    for (let round = 0; round < 1500; round++) {
      const text = file(random, true);
      const bytes = Buffer.from(text);
      const delimiter = detectDelimiter(text.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0]);
      const chunks = chunked(random, bytes);
      expect({ text, rows: counted(chunks) }).toEqual({
        text,
        rows: await parsedRows(chunks, delimiter),
      });
    }
  });

  it('mostly agrees on malformed ones (the runner fixes the total at the end)', async () => {
    const random = randomness(78);
    let agreed = 0;
    const rounds = 500;
    for (let round = 0; round < rounds; round++) {
      const text = file(random, false);
      const delimiter = detectDelimiter(text.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0]);
      const chunks = chunked(random, Buffer.from(text));
      if (counted(chunks) === (await parsedRows(chunks, delimiter))) agreed++;
    }
    expect(agreed / rounds).toBeGreaterThan(0.9);
  });

  it('counts nothing but the header as no rows', () => {
    const counter = new CsvRowCounter();
    counter.push(Buffer.from('email\n'));
    expect(counter.finish()).toBe(0);
    expect(new CsvRowCounter().finish()).toBe(0);
  });
});
