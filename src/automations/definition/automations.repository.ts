import { Injectable } from '@nestjs/common';
import {
  Automation,
  AutomationReentry,
  AutomationStatus,
  Prisma,
} from '../../generated/prisma/client';
import type { AccountId } from '../../platform/database/account-id';
import type { Db } from '../../platform/database/db';
import { PrismaService } from '../../platform/database/prisma.service';
import { keysetPage, KeysetListing, PageRequest } from '../../platform/pagination/page-request';

export interface AutomationColumns {
  name: string;
  trigger: Prisma.InputJsonObject;
  steps: Prisma.InputJsonArray;
  reentry: AutomationReentry;
  triggerType: string;
  triggerRef: string | null;
}

/**
 * The automations table and its only writer, with the hidden send campaigns' map
 * (automation_step_campaigns). Status changes are conditional updates, so two requests
 * racing on one automation cannot both win.
 */
@Injectable()
export class AutomationsRepository implements KeysetListing<Automation> {
  readonly listName = 'automations';

  constructor(private readonly prisma: PrismaService) {}

  listPage(accountId: AccountId, page: PageRequest): Promise<Automation[]> {
    return this.prisma.automation.findMany(keysetPage(accountId, page));
  }

  findById(accountId: AccountId, id: string, db: Db = this.prisma): Promise<Automation | null> {
    return db.automation.findFirst({ where: { accountId, id } });
  }

  findByIds(ids: string[], db: Db): Promise<Automation[]> {
    return db.automation.findMany({ where: { id: { in: ids } } });
  }

  create(accountId: AccountId, id: string, columns: AutomationColumns): Promise<Automation> {
    return this.prisma.automation.create({ data: { ...columns, id, accountId } });
  }

  /** Changes a draft or paused automation; null when there is none in those states. */
  async updateEditable(
    accountId: AccountId,
    id: string,
    columns: Partial<AutomationColumns>,
    tx: Db,
  ): Promise<Automation | null> {
    const { count } = await tx.automation.updateMany({
      where: { accountId, id, status: { in: ['draft', 'paused'] } },
      data: columns,
    });
    return count === 0 ? null : this.findById(accountId, id, tx);
  }

  /**
   * A status change from one of `from`; null when the automation was in none of them. It
   * clears the guard's pause reason unless `set` gives one: only the guard's pause has one.
   */
  async transition(
    accountId: AccountId,
    id: string,
    from: AutomationStatus[],
    to: AutomationStatus,
    tx: Db,
    set: Prisma.AutomationUpdateManyMutationInput = {},
  ): Promise<Automation | null> {
    const { count } = await tx.automation.updateMany({
      where: { accountId, id, status: { in: from } },
      data: { pausedReason: null, ...set, status: to },
    });
    return count === 0 ? null : this.findById(accountId, id, tx);
  }

  async delete(accountId: AccountId, id: string, tx: Db): Promise<boolean> {
    const { count } = await tx.automation.deleteMany({ where: { accountId, id } });
    return count > 0;
  }

  /** Active automations with this trigger type, across accounts (the trigger sweeps). */
  activeWithTrigger(triggerType: string): Promise<Automation[]> {
    return this.prisma.automation.findMany({ where: { status: 'active', triggerType } });
  }

  /** The account's active automations listening for this event name. */
  activeForEvent(accountId: AccountId, name: string, db: Db): Promise<Automation[]> {
    return db.automation.findMany({
      where: { accountId, status: 'active', triggerType: 'event', triggerRef: name },
    });
  }

  setCreatedCursor(id: string, cursor: Date): Promise<unknown> {
    return this.prisma.automation.updateMany({
      where: { id, status: 'active' },
      data: { createdCursor: cursor },
    });
  }

  /** The hidden campaign of a send step for a run entry, if made already. */
  async stepCampaign(
    automationId: string,
    stepId: string,
    generation: number,
    db: Db,
  ): Promise<string | undefined> {
    const row = await db.automationStepCampaign.findUnique({
      where: { automationId_stepId_generation: { automationId, stepId, generation } },
    });
    return row?.campaignId;
  }

  /** Serialises the making of one step campaign for the rest of the transaction. */
  async lockStepCampaign(automationId: string, stepId: string, generation: number, tx: Db) {
    const key = `automation-step:${automationId}:${stepId}:${generation}`;
    await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))::text`;
  }

  async addStepCampaign(
    accountId: AccountId,
    automationId: string,
    stepId: string,
    generation: number,
    campaignId: string,
    tx: Db,
  ): Promise<void> {
    await tx.automationStepCampaign.create({
      data: { accountId, automationId, stepId, generation, campaignId },
    });
  }

  /** Every hidden campaign of the automation, by step id. */
  async stepCampaigns(automationId: string, db: Db = this.prisma): Promise<Map<string, string[]>> {
    const rows = await db.automationStepCampaign.findMany({ where: { automationId } });
    const byStep = new Map<string, string[]>();
    for (const row of rows)
      byStep.set(row.stepId, [...(byStep.get(row.stepId) ?? []), row.campaignId]);
    return byStep;
  }
}
