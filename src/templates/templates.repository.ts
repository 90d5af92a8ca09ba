import { Injectable } from '@nestjs/common';
import { Template } from '../generated/prisma/client';
import { PrismaService } from '../platform/database/prisma.service';
import { keysetPage, PageRequest } from '../platform/pagination/page-request';

@Injectable()
export class TemplatesRepository {
  constructor(private readonly prisma: PrismaService) {}

  listPage(accountId: string, page: PageRequest): Promise<Template[]> {
    return this.prisma.template.findMany(keysetPage(accountId, page));
  }
}
