import Busboy, { BusboyHeaders, BusboyInstance } from '@fastify/busboy';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { InvalidRequestError, ValidationFailedError } from '../platform/errors/api-errors';
import { CsvRowCounter } from './csv-row-count';

/** Bytes of an upload kept aside to read its header from. */
export const HEAD_BYTES = 64 * 1024;

export interface UploadedCsv {
  /** The text fields of the form (`mode`, `columns`). */
  fields: Record<string, string>;
  /** What `store` returned for the file, and the file's first bytes. */
  stored: { id: string; bytes: number };
  head: Buffer;
  /** The file's data rows, counted as it went by (see CsvRowCounter). */
  rows: number;
}

/**
 * Reads a `multipart/form-data` request whose field `file` is a CSV, streaming the file into
 * `store` as it arrives (never whole in memory), keeping its first 64 KiB for the header and
 * counting its rows on the way.
 * Other fields are small text (64 KiB each, 10 at most). A request that is not multipart, or
 * has no `file` field, is a 400; `store` enforces the size limit.
 */
export function readCsvUpload(
  request: IncomingMessage,
  store: (file: AsyncIterable<Buffer>) => Promise<{ id: string; bytes: number }>,
): Promise<UploadedCsv> {
  const type = request.headers['content-type'] ?? '';
  if (!/^multipart\/form-data/i.test(type)) {
    return Promise.reject(
      new InvalidRequestError(
        'Send the CSV as multipart/form-data, in the form field "file" (curl -F file=@list.csv).',
      ),
    );
  }
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {};
    let storing: Promise<{ id: string; bytes: number }> | undefined;
    let head = Buffer.alloc(0);
    const counter = new CsvRowCounter();
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      request.unpipe(busboy);
      // The rest of the body is not read: answering closes the connection.
      reject(error instanceof Error ? error : new Error(String(error)));
    };
    let busboy: BusboyInstance;
    try {
      busboy = new Busboy({
        headers: request.headers as BusboyHeaders,
        limits: { files: 1, fields: 10, fieldSize: HEAD_BYTES, parts: 12 },
      });
    } catch {
      return reject(new InvalidRequestError('The multipart body has no boundary.'));
    }
    busboy.on('field', (name: string, value: string) => {
      fields[name] = value;
    });
    busboy.on('file', (name: string, stream: Readable) => {
      if (name !== 'file' || storing) {
        stream.resume();
        return;
      }
      async function* chunks(): AsyncGenerator<Buffer> {
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          if (head.length < HEAD_BYTES) {
            head = Buffer.concat([head, chunk.subarray(0, HEAD_BYTES - head.length)]);
          }
          counter.push(chunk);
          yield chunk;
        }
      }
      storing = store(chunks());
      storing.catch(fail);
    });
    busboy.on('error', () => fail(new InvalidRequestError('The multipart body is malformed.')));
    busboy.on('finish', () => {
      if (failed) return;
      if (!storing) return fail(new InvalidRequestError('Missing required field: file.'));
      storing.then((stored) => resolve({ fields, stored, head, rows: counter.finish() }), fail);
    });
    request.on('error', fail);
    request.pipe(busboy);
  });
}

/** A form field that is present but wrong: 422 on that field. */
export function invalidField(field: string, code: string, message: string): ValidationFailedError {
  return new ValidationFailedError([{ field, code, message }]);
}
