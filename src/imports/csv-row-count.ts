import { CsvRecordScanner } from './csv-record-scanner';
import { detectDelimiter } from './import-plan';

const LF = 0x0a;

/** Before the first line is whole, the delimiter is unknown: at most this much is held. */
const FIRST_LINE_LIMIT = 64 * 1024;

/**
 * Counts the records of a CSV upload as its bytes go by, without parsing it (a
 * `CsvRecordScanner` once the delimiter is known from the first line). For a well-formed file
 * it gives the count the parser will find, at about a twentieth of the parser's cost, so the
 * import needs no counting pass over its file. On malformed ones the two may differ; the
 * runner makes the total exact when it reaches the end.
 */
export class CsvRowCounter {
  private scanner: CsvRecordScanner | undefined;
  private firstLine: Buffer[] = [];
  private firstLineBytes = 0;

  /** Feed the file's bytes in order. */
  push(chunk: Buffer): void {
    if (this.scanner) {
      this.scanner.scan(chunk);
      return;
    }
    this.firstLine.push(chunk);
    this.firstLineBytes += chunk.length;
    const held = Buffer.concat(this.firstLine);
    if (!held.includes(LF) && this.firstLineBytes < FIRST_LINE_LIMIT) return;
    this.begin(held).scan(held);
  }

  /** Data rows of the file (the header is not one); call once, after the last chunk. */
  finish(): number {
    if (!this.scanner) {
      const held = Buffer.concat(this.firstLine);
      this.begin(held).scan(held);
    }
    return Math.max(0, this.scanner!.finish() - 1);
  }

  private begin(head: Buffer): CsvRecordScanner {
    this.firstLine = [];
    const text = head.toString('utf8').replace(/^\uFEFF/, '');
    const delimiter = detectDelimiter(text.split(/\r?\n/, 1)[0] ?? '').charCodeAt(0);
    this.scanner = new CsvRecordScanner(delimiter);
    return this.scanner;
  }
}
