import { Injectable } from '@nestjs/common';
import { Campaign } from '../generated/prisma/client';
import { PrismaService } from '../platform/database/prisma.service';
import { keysetPage, PageRequest } from '../platform/pagination/page-request';

@Injectable()
export class CampaignsRepository {
  constructor(private readonly prisma: PrismaService) {}

  listPage(accountId: string, page: PageRequest): Promise<Campaign[]> {
    return this.prisma.campaign.findMany(keysetPage(accountId, page));
  }
}
