import type { Db, PgClient } from './db';

/**
 * A transaction of either kind: Prisma's (most of Herald) or a PgPool client (the send hot
 * path). Code that must join whichever transaction its caller has writes pg text with `$n`
 * parameters and runs it through `runSql`.
 */
export type SqlRunner = Db | PgClient;

export async function runSql<T = Record<string, unknown>>(
  db: SqlRunner,
  text: string,
  params: unknown[] = [],
): Promise<T[]> {
  if ('$queryRawUnsafe' in db) return db.$queryRawUnsafe<T[]>(text, ...params);
  return (await db.query(text, params)).rows as T[];
}
