import { Injectable, Module } from '@nestjs/common';
import { Readable } from 'node:stream';
import { newId } from '../crypto/ids';
import type { AccountId } from '../database/account-id';
import type { Db, PgClient } from '../database/db';
import { PgPool } from '../database/pg-pool';
import { FILE_CHUNK_BYTES } from '../settings';
import * as sql from './file-store.sql';

export class FileTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`the file is larger than ${limitBytes} bytes`);
  }
}

/**
 * Files in PostgreSQL, written and read as streams in chunks of FILE_CHUNK_BYTES, so a
 * 100 MB upload never sits whole in a process's memory and every API and worker process sees
 * the same files without a shared disk. Used for CSV uploads (kept until their import ends)
 * and exports (kept until they expire).
 */
@Injectable()
export class FileStore {
  constructor(private readonly pool: PgPool) {}

  /**
   * Stores a stream as a new file and returns its id and size. Each chunk is inserted before
   * the next is read, so a fast client is held to the database's pace (backpressure). On any
   * failure (the stream errors, a limit is passed) the partial file is deleted.
   */
  async write(
    accountId: AccountId,
    purpose: string,
    source: AsyncIterable<Buffer | string>,
    limitBytes = Number.POSITIVE_INFINITY,
  ): Promise<{ id: string; bytes: number }> {
    const id = newId();
    await this.pool.query(sql.CREATE_FILE, [id, accountId, purpose]);
    try {
      let bytes = 0;
      let seq = 0;
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      const flush = async () => {
        if (pendingBytes === 0) return;
        await this.pool.query(sql.INSERT_CHUNK, [id, seq++, Buffer.concat(pending, pendingBytes)]);
        pending = [];
        pendingBytes = 0;
      };
      for await (const part of source) {
        const buffer = typeof part === 'string' ? Buffer.from(part) : part;
        bytes += buffer.length;
        if (bytes > limitBytes) throw new FileTooLargeError(limitBytes);
        pending.push(buffer);
        pendingBytes += buffer.length;
        if (pendingBytes >= FILE_CHUNK_BYTES) await flush();
      }
      await flush();
      await this.pool.query(sql.COMPLETE_FILE, [accountId, id, bytes]);
      return { id, bytes };
    } catch (error) {
      await this.pool.query(sql.DELETE_FILE, [accountId, id]).catch(() => undefined);
      throw error;
    }
  }

  /**
   * A completed file as a stream, one chunk read from PostgreSQL at a time, when the consumer
   * asks for it. An unknown or incomplete file is an empty stream.
   */
  read(accountId: AccountId, fileId: string): Readable {
    const pool = this.pool;
    async function* chunks(): AsyncGenerator<Buffer> {
      for (let seq = 0; ; seq++) {
        const { rows } = await pool.query<{ data: Buffer }>(sql.READ_CHUNK, [
          accountId,
          fileId,
          seq,
        ]);
        if (rows.length === 0) return;
        yield rows[0].data;
      }
    }
    // One chunk ahead at most: the consumer's pace decides how much is read.
    return Readable.from(chunks(), { objectMode: false, highWaterMark: 1 });
  }

  async delete(accountId: AccountId, fileId: string, db: PgClient = this.pool): Promise<void> {
    await db.query(sql.DELETE_FILE, [accountId, fileId]);
  }

  async deleteMany(accountId: AccountId, fileIds: string[], db: PgClient): Promise<void> {
    if (fileIds.length > 0) await db.query(sql.DELETE_FILES, [accountId, fileIds]);
  }

  /** deleteMany inside a Prisma transaction (an erasure participant's). */
  async deleteManyInTransaction(accountId: AccountId, fileIds: string[], tx: Db): Promise<void> {
    if (fileIds.length > 0) await tx.$executeRawUnsafe(sql.DELETE_FILES, accountId, fileIds);
  }

  /** Deletes uploads started before `cutoff` that never completed; returns how many. */
  async deleteAbandonedAcrossAccounts(cutoff: Date, limit: number): Promise<number> {
    const { rowCount } = await this.pool.query(sql.DELETE_ABANDONED, [cutoff, limit]);
    return rowCount ?? 0;
  }
}

@Module({ providers: [FileStore], exports: [FileStore] })
export class FileStoreModule {}
