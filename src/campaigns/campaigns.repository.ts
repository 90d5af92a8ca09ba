import { Injectable } from '@nestjs/common';
import { Campaign, Prisma } from '../generated/prisma/client';
import { PrismaService } from '../platform/database/prisma.service';
import { keysetPage, PageRequest } from '../platform/pagination/page-request';

export type CampaignColumns = Pick<
  Prisma.CampaignUncheckedCreateInput,
  'name' | 'subject' | 'fromAddress' | 'templateId' | 'segmentId' | 'html' | 'text'
>;

@Injectable()
export class CampaignsRepository {
  constructor(private readonly prisma: PrismaService) {}

  listPage(accountId: string, page: PageRequest): Promise<Campaign[]> {
    return this.prisma.campaign.findMany(keysetPage(accountId, page));
  }

  findById(accountId: string, id: string): Promise<Campaign | null> {
    return this.prisma.campaign.findFirst({ where: { accountId, id } });
  }

  create(accountId: string, id: string, columns: CampaignColumns): Promise<Campaign> {
    return this.prisma.campaign.create({ data: { ...columns, id, accountId } });
  }

  /** Changes a draft; null when there is no draft with that id (missing, or already sending). */
  async updateDraft(
    accountId: string,
    id: string,
    columns: Partial<CampaignColumns>,
  ): Promise<Campaign | null> {
    const { count } = await this.prisma.campaign.updateMany({
      where: { accountId, id, status: 'draft' },
      data: { ...columns, updatedAt: new Date() },
    });
    return count === 0 ? null : this.findById(accountId, id);
  }

  async deleteDraft(accountId: string, id: string): Promise<boolean> {
    const { count } = await this.prisma.campaign.deleteMany({
      where: { accountId, id, status: 'draft' },
    });
    return count > 0;
  }

  /**
   * Claims the send: the one atomic conditional UPDATE that lets exactly one of any number of
   * concurrent calls move the draft to `sending`. It also freezes the content: a template's
   * html and text are copied onto the campaign, so editing the template mid-send changes
   * nothing for the recipients still to come.
   */
  async startSending(accountId: string, id: string): Promise<boolean> {
    const updated = await this.prisma.$executeRaw`
      UPDATE campaigns c
         SET status = 'sending',
             started_at = now(),
             progress_at = now(),
             updated_at = now(),
             html = CASE WHEN c.template_id IS NULL THEN c.html
                         ELSE (SELECT t.html FROM templates t
                                WHERE t.id = c.template_id AND t.account_id = c.account_id) END,
             text = CASE WHEN c.template_id IS NULL THEN c.text
                         ELSE (SELECT t.text FROM templates t
                                WHERE t.id = c.template_id AND t.account_id = c.account_id) END
       WHERE c.account_id = ${accountId}::uuid AND c.id = ${id}::uuid AND c.status = 'draft'`;
    return updated === 1;
  }

  /** Recipients not yet finished (pending or in flight): the live part of the progress. */
  async outstanding(accountId: string, id: string): Promise<number> {
    const rows = await this.prisma.$queryRaw<{ count: bigint }[]>`
      SELECT count(*) AS count FROM campaign_recipients
       WHERE account_id = ${accountId}::uuid AND campaign_id = ${id}::uuid
         AND status IN ('pending', 'sending')`;
    return Number(rows[0]?.count ?? 0);
  }
}
