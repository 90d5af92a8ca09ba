import { Injectable } from '@nestjs/common';
import { Prisma, Subscriber } from '../generated/prisma/client';
import { PrismaService } from '../platform/database/prisma.service';
import { keysetPage, PageRequest } from '../platform/pagination/page-request';

type Db = Prisma.TransactionClient;

@Injectable()
export class SubscribersRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Newest first, keyset on the time-ordered id. */
  listPage(accountId: string, page: PageRequest): Promise<Subscriber[]> {
    return this.prisma.subscriber.findMany(keysetPage(accountId, page));
  }

  findById(accountId: string, id: string): Promise<Subscriber | null> {
    return this.prisma.subscriber.findFirst({ where: { accountId, id } });
  }

  async emailTaken(accountId: string, emailNormalized: string, db: Db): Promise<boolean> {
    const found = await db.subscriber.findUnique({
      where: { accountId_emailNormalized: { accountId, emailNormalized } },
      select: { id: true },
    });
    return found !== null;
  }

  create(
    accountId: string,
    id: string,
    columns: Prisma.SubscriberUncheckedUpdateInput,
    db: Db,
  ): Promise<Subscriber> {
    return db.subscriber.create({
      data: { ...columns, id, accountId } as Prisma.SubscriberUncheckedCreateInput,
    });
  }

  /** Null when the subscriber no longer exists (e.g. erased meanwhile). */
  async update(
    accountId: string,
    id: string,
    columns: Prisma.SubscriberUncheckedUpdateInput,
    db: Db,
  ): Promise<Subscriber | null> {
    const { count } = await db.subscriber.updateMany({
      where: { accountId, id },
      data: { ...columns, updatedAt: new Date() },
    });
    return count === 0 ? null : db.subscriber.findFirst({ where: { accountId, id } });
  }
}
