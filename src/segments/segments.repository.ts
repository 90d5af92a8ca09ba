import { Injectable } from '@nestjs/common';
import { Segment } from '../generated/prisma/client';
import { PrismaService } from '../platform/database/prisma.service';
import { keysetPage, PageRequest } from '../platform/pagination/page-request';

@Injectable()
export class SegmentsRepository {
  constructor(private readonly prisma: PrismaService) {}

  listPage(accountId: string, page: PageRequest): Promise<Segment[]> {
    return this.prisma.segment.findMany(keysetPage(accountId, page));
  }
}
