const QUOTE = 0x22;
const CR = 0x0d;
const LF = 0x0a;
const BOM = [0xef, 0xbb, 0xbf];

export type RecordDelimiter = 'crlf' | 'lf' | 'cr';

/**
 * Follows a CSV file's quoting and record ends byte by byte, the way csv-parse does with the
 * options imports use (`csvOptions`): a quote opens a field only at its start, `""` inside
 * quotes is a quote, a stray closing quote is kept as text, the record delimiter is the first
 * of CRLF, LF or CR met, empty lines are no records. It tells where each record delimiter
 * ends (empty lines included) and counts the records, without building a single cell.
 */
export class CsvRecordScanner {
  private records = 0;
  private started = false;
  private recordDelimiter: RecordDelimiter | undefined;
  private quoting = false;
  /** A quote met inside quotes: what it means depends on the next byte. */
  private quoteInQuotes = false;
  /** A CR met where CRLF ends records: a record end only if LF follows. */
  private pendingCr = false;
  private fieldHasText = false;
  private recordHasFields = false;
  private wasQuoting = false;

  constructor(private readonly delimiter: number) {}

  /** The record delimiter of the file, once one has been met. */
  get delimiterMet(): RecordDelimiter | undefined {
    return this.recordDelimiter;
  }

  /**
   * Feed the file's bytes in order; `atRecordEnd` is called with the offset in `bytes` just
   * past each record delimiter.
   */
  scan(bytes: Buffer, atRecordEnd?: (end: number) => void): void {
    let at = 0;
    if (!this.started) {
      this.started = true;
      if (BOM.every((byte, index) => bytes[index] === byte)) at = BOM.length;
    }
    for (; at < bytes.length; at++) {
      const byte = bytes[at];
      if (this.quoteInQuotes) {
        this.quoteInQuotes = false;
        if (byte === QUOTE) continue; // an escaped quote: still quoting
        this.quoting = false;
        this.wasQuoting = true;
        // Not followed by a delimiter or a record end: the parser keeps the quote as text.
        if (byte !== this.delimiter && byte !== CR && byte !== LF) this.fieldHasText = true;
      } else if (this.quoting) {
        if (byte === QUOTE) this.quoteInQuotes = true;
        continue;
      }
      if (this.pendingCr) {
        this.pendingCr = false;
        if (byte === LF) {
          this.endRecord();
          atRecordEnd?.(at + 1);
          continue;
        }
        this.fieldHasText = true; // a lone CR in a CRLF file is text
      }
      if (byte === this.delimiter) {
        this.recordHasFields = true;
        this.fieldHasText = false;
      } else if (byte === CR || byte === LF) {
        if (this.recordEnd(byte, bytes, at)) atRecordEnd?.(at + 1);
      } else if (byte === QUOTE && !this.fieldHasText) {
        this.quoting = true;
      } else {
        this.fieldHasText = true;
      }
    }
  }

  /** Records in the file (the header is one); call once, after the last bytes. */
  finish(): number {
    if (this.quoteInQuotes) {
      this.quoteInQuotes = false;
      this.quoting = false;
      this.wasQuoting = true;
    }
    if (this.pendingCr) {
      this.pendingCr = false;
      this.fieldHasText = true;
    }
    // An unclosed quote swallows the rest of the file: one record (the parser's one error).
    if (this.quoting || this.recordHasFields || this.fieldHasText || this.wasQuoting) {
      this.records++;
    }
    return this.records;
  }

  /** A CR or LF outside quotes: true when it ended a record. */
  private recordEnd(byte: number, bytes: Buffer, at: number): boolean {
    if (this.recordDelimiter === undefined) {
      // The first record end decides, as the parser's discovery does; a CR at the very end
      // of a chunk is taken as CRLF when LF starts the next one (pendingCr).
      if (byte === LF) this.recordDelimiter = 'lf';
      else if (at + 1 >= bytes.length || bytes[at + 1] === LF) this.recordDelimiter = 'crlf';
      else this.recordDelimiter = 'cr';
    }
    if (this.recordDelimiter === 'crlf') {
      if (byte === CR) this.pendingCr = true;
      else this.fieldHasText = true; // a lone LF in a CRLF file is text
    } else if ((this.recordDelimiter === 'lf') === (byte === LF)) {
      this.endRecord();
      return true;
    } else {
      this.fieldHasText = true;
    }
    return false;
  }

  private endRecord(): void {
    if (this.recordHasFields || this.fieldHasText || this.wasQuoting) this.records++;
    this.recordHasFields = false;
    this.fieldHasText = false;
    this.wasQuoting = false;
  }
}
