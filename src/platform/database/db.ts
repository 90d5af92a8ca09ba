import type { PoolClient } from 'pg';
import type { Prisma } from '../../generated/prisma/client';

/**
 * Where a repository statement runs: PrismaService itself or an open transaction. Methods that
 * must join a caller's transaction take one last; the caller owns BEGIN and COMMIT.
 */
export type Db = Prisma.TransactionClient;

/**
 * A pg connection inside a PgPool transaction, for the statements of the send hot path that
 * skip Prisma (see PgPool.transaction).
 */
export type PgClient = Pick<PoolClient, 'query'>;
