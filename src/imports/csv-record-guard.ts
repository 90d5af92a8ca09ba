import { randomUUID } from 'node:crypto';
import { Transform, TransformCallback } from 'node:stream';
import { CsvRecordScanner, RecordDelimiter } from './csv-record-scanner';

const DELIMITER_BYTES: Record<RecordDelimiter, string> = { crlf: '\r\n', lf: '\n', cr: '\r' };

/**
 * Stands between an import's file and the CSV parser and bounds every record: a record longer
 * than `maxBytes` (its bytes as written, quotes and delimiters included) never reaches the
 * parser; in its place goes a one-cell record holding `marker`, so it keeps its number and the
 * rows after it are read as usual. The parser's own size limit cannot do this: once a record
 * passes it, csv-parse drops the rest of the chunk and every chunk after it, the oversized
 * field still in its buffer, however `skip_records_with_error` is set. At most one record
 * (`maxBytes`) and one chunk are held.
 */
export class CsvRecordGuard extends Transform {
  /** Unguessable per file, so no cell of the file can pass for it. */
  readonly marker = `herald-row-too-long-${randomUUID()}`;
  private readonly scanner: CsvRecordScanner;
  /** Bytes of the record under way, not yet passed on. */
  private held: Buffer[] = [];
  private heldBytes = 0;
  /** The record under way is already too long: its bytes are dropped until its end. */
  private dropping = false;

  constructor(
    delimiter: string,
    private readonly maxBytes: number,
  ) {
    super();
    this.scanner = new CsvRecordScanner(delimiter.charCodeAt(0));
  }

  override _transform(chunk: Buffer, _encoding: string, done: TransformCallback): void {
    const out: Buffer[] = [];
    let start = 0; // where the record under way starts in this chunk
    let passFrom = 0; // from here to `start`: whole records of this chunk, passed on as they are
    this.scanner.scan(chunk, (end) => {
      if (this.dropping || this.heldBytes + end - start > this.maxBytes) {
        if (passFrom < start) out.push(chunk.subarray(passFrom, start));
        out.push(Buffer.from(this.marker + DELIMITER_BYTES[this.scanner.delimiterMet!]));
        passFrom = end;
      } else if (this.heldBytes > 0) {
        out.push(...this.held); // the first record of the chunk began in earlier ones
      }
      this.held = [];
      this.heldBytes = 0;
      this.dropping = false;
      start = end;
    });
    if (passFrom < start) out.push(chunk.subarray(passFrom, start));
    if (!this.dropping) {
      if (this.heldBytes + chunk.length - start > this.maxBytes) {
        this.dropping = true;
        this.held = [];
        this.heldBytes = 0;
      } else if (start < chunk.length) {
        this.held.push(chunk.subarray(start));
        this.heldBytes += chunk.length - start;
      }
    }
    if (out.length > 0) this.push(out.length === 1 ? out[0] : Buffer.concat(out));
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.dropping) this.push(Buffer.from(this.marker));
    else if (this.heldBytes > 0) this.push(Buffer.concat(this.held));
    done();
  }
}
