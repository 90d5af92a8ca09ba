import type { PgClient } from './db';

/** What node-postgres hands a custom query to talk COPY with the server. */
interface CopyConnection {
  stream: { cork(): void; uncork(): void };
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
}

const CHUNK_BYTES = 64 * 1024;

/**
 * Runs `COPY … FROM STDIN` (text format) on `client`, inside whatever transaction it has open,
 * sending `data` (text, or its UTF-8 bytes): one line per row, tab-separated, each value
 * escaped with `copyText` and the like. Node-postgres runs an object with a `submit` method as
 * a query of its own, which is how this speaks the COPY sub-protocol without another
 * dependency. Resolves once the server has taken every row; a row it refuses fails the
 * statement (and the transaction) as an INSERT would.
 */
export function copyFrom(
  client: PgClient,
  statement: string,
  data: string | Buffer,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let failure: Error | undefined;
    const copy = {
      text: statement,
      callback: undefined,
      submit(connection: CopyConnection) {
        connection.query(statement);
      },
      handleCopyInResponse(connection: CopyConnection) {
        // Every message of the COPY leaves in one write: system calls are not cheap where
        // Herald runs (a sandboxed kernel, bench/import), and a batch is a few hundred KiB.
        const bytes = typeof data === 'string' ? Buffer.from(data) : data;
        connection.stream.cork();
        for (let at = 0; at < bytes.length; at += CHUNK_BYTES) {
          connection.sendCopyFromChunk(bytes.subarray(at, at + CHUNK_BYTES));
        }
        connection.endCopyFrom();
        connection.stream.uncork();
      },
      handleCommandComplete() {},
      handleError(error: Error) {
        failure = error;
      },
      // The server is ready for the next statement: the COPY is over, one way or the other.
      handleReadyForQuery() {
        if (failure) reject(failure);
        else resolve();
      },
    };
    void client.query(copy as never);
  });
}

const SPECIAL = /[\\\t\n\r]/;
const SPECIAL_ALL = /[\\\t\n\r]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** A value of a COPY text line: backslash, tab and line ends escaped; null as `\N`. */
export function copyText(value: string | null | undefined): string {
  if (value === null || value === undefined) return '\\N';
  return SPECIAL.test(value) ? value.replace(SPECIAL_ALL, (char) => ESCAPES[char]) : value;
}

/** A text[] value of a COPY line: an array literal of quoted items, then escaped as text. */
export function copyTextArray(items: readonly string[] | null | undefined): string {
  if (items === null || items === undefined) return '\\N';
  const literal = items.map((item) => `"${item.replace(/["\\]/g, '\\$&')}"`).join(',');
  return copyText(`{${literal}}`);
}
