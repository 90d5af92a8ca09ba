import { Injectable } from '@nestjs/common';
import { Subscriber } from '../generated/prisma/client';
import { PrismaService } from '../platform/database/prisma.service';
import { keysetPage, PageRequest } from '../platform/pagination/page-request';

/**
 * The dashboard's subscriber search: emails containing the query (so a prefix works too),
 * newest first, keyset on id. It walks the (account_id, id) index and stops at the page
 * size, so common matches are cheap; a rare match in a very large list scans further.
 */
@Injectable()
export class SubscriberSearchRepository {
  constructor(private readonly prisma: PrismaService) {}

  search(accountId: string, query: string, page: PageRequest): Promise<Subscriber[]> {
    const { where, ...rest } = keysetPage(accountId, page);
    const needle = query.trim().toLowerCase();
    return this.prisma.subscriber.findMany({
      ...rest,
      where: needle ? { ...where, emailNormalized: { contains: escapeLike(needle) } } : where,
    });
  }
}

/**
 * Prisma passes `contains` to LIKE as is, so a typed % or _ would act as a wildcard; escaped
 * with PostgreSQL's default LIKE escape character, they match themselves.
 */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}
