import { Injectable } from '@nestjs/common';
import { Template } from '../generated/prisma/client';
import type { AccountId } from '../platform/database/account-id';
import { PrismaService } from '../platform/database/prisma.service';
import { keysetPage, KeysetListing, PageRequest } from '../platform/pagination/page-request';
import * as sql from './templates.sql';

export interface TemplateColumns {
  name: string;
  subject: string;
  html: string | null;
  text: string | null;
}

export type DeleteOutcome = 'deleted' | 'not_found' | 'in_use';

/** The templates table and its only writer. The raw statements are in templates.sql.ts. */
@Injectable()
export class TemplatesRepository implements KeysetListing<Template> {
  readonly listName = 'templates';

  constructor(private readonly prisma: PrismaService) {}

  listPage(accountId: AccountId, page: PageRequest): Promise<Template[]> {
    return this.prisma.template.findMany(keysetPage(accountId, page));
  }

  findById(accountId: AccountId, id: string): Promise<Template | null> {
    return this.prisma.template.findFirst({ where: { accountId, id } });
  }

  create(accountId: AccountId, id: string, columns: TemplateColumns): Promise<Template> {
    return this.prisma.template.create({ data: { ...columns, id, accountId } });
  }

  /**
   * Reads the row under a lock, lets `change` compute the new columns from it (and throw to
   * refuse), and writes them: two concurrent PATCHes cannot each clear one of html and text.
   * Null when no such template in this account.
   */
  update(
    accountId: AccountId,
    id: string,
    change: (current: Template) => Partial<TemplateColumns>,
  ): Promise<Template | null> {
    return this.prisma.$transaction(async (tx) => {
      const locked = await tx.$queryRaw<{ id: string }[]>(sql.lockTemplate(accountId, id));
      if (locked.length === 0) return null;
      const current = await tx.template.findFirstOrThrow({ where: { accountId, id } });
      return tx.template.update({
        where: { id },
        data: change(current),
      });
    });
  }

  /**
   * Deleting a template sets campaign.template_id to NULL, which would leave a pending
   * campaign with nothing to send; so a template that a campaign not yet sent (nor cancelled)
   * uses is kept.
   * The check and the delete are one statement.
   */
  async delete(accountId: AccountId, id: string): Promise<DeleteOutcome> {
    const { count } = await this.prisma.template.deleteMany({
      where: { accountId, id, campaigns: { none: { status: { notIn: ['sent', 'cancelled'] } } } },
    });
    if (count > 0) return 'deleted';
    return (await this.findById(accountId, id)) ? 'in_use' : 'not_found';
  }
}
