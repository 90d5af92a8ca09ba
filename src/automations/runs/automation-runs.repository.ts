import { Injectable } from '@nestjs/common';
import { AutomationRun, AutomationRunStep, Prisma } from '../../generated/prisma/client';
import { newIds } from '../../platform/crypto/ids';
import type { AccountId } from '../../platform/database/account-id';
import type { Db } from '../../platform/database/db';
import { PrismaService } from '../../platform/database/prisma.service';
import { runSql } from '../../platform/database/sql-runner';
import { PageRequest } from '../../platform/pagination/page-request';
import * as sql from './automation-runs.sql';

/** A due run as the engine claims it. */
export interface DueRun {
  id: string;
  account_id: string;
  automation_id: string;
  subscriber_id: string | null;
  entry: number;
  current_step_id: string | null;
  in_wait: boolean;
}

/** Where a run goes after the engine's pass over it. */
export interface RunAdvance {
  id: string;
  status: 'waiting' | 'completed' | 'exited' | 'failed';
  stepId: string | null;
  inWait: boolean;
  nextAt: Date | null;
  reason: string | null;
}

/** A line of a run's timeline. */
export interface TimelineEntry {
  runId: string;
  stepId: string;
  type: string;
  status: 'done' | 'skipped' | 'failed';
  messageId: string | null;
}

/** A run that ended, as its webhook event tells it. */
export interface EndedRun {
  id: string;
  automation_id: string;
  subscriber_id: string | null;
  exit_reason: string | null;
  ended_at: Date | null;
}

export type RunWithSteps = AutomationRun & { steps: AutomationRunStep[] };

/**
 * automation_runs and automation_run_steps, and their only writer. The statements are in
 * automation-runs.sql.ts; the engine's run through pg text in its transaction.
 */
@Injectable()
export class AutomationRunsRepository {
  constructor(private readonly prisma: PrismaService) {}

  lockEnrolments(automationId: string, tx: Db): Promise<unknown> {
    return tx.$queryRaw(sql.lockAutomation(automationId));
  }

  /** Enrols subscribers (see sql.enrol); returns the runs created. */
  async enrol(
    accountId: AccountId,
    automation: { id: string; firstStepId: string; reentry: string },
    entries: { subscriberId: string; key: string }[],
    filter: Prisma.Sql,
    tx: Db,
  ): Promise<{ id: string; subscriber_id: string }[]> {
    if (entries.length === 0) return [];
    return tx.$queryRaw(
      sql.enrol(
        accountId,
        automation.id,
        automation.firstStepId,
        automation.reentry,
        {
          ids: newIds(entries.length),
          subscriberIds: entries.map((e) => e.subscriberId),
          keys: entries.map((e) => e.key),
        },
        filter,
      ),
    );
  }

  claimDue(limit: number, tx: Db): Promise<DueRun[]> {
    return runSql<DueRun>(tx, sql.CLAIM_DUE, [limit]);
  }

  async advance(advances: RunAdvance[], tx: Db): Promise<void> {
    if (advances.length === 0) return;
    await runSql(tx, sql.ADVANCE, [
      advances.map((a) => a.id),
      advances.map((a) => a.status),
      advances.map((a) => a.stepId),
      advances.map((a) => a.inWait),
      advances.map((a) => a.nextAt),
      advances.map((a) => a.reason),
    ]);
  }

  async record(entries: TimelineEntry[], tx: Db): Promise<void> {
    if (entries.length === 0) return;
    await runSql(tx, sql.RECORD_STEPS, [
      entries.map((e) => e.runId),
      entries.map((e) => e.stepId),
      entries.map((e) => e.type),
      entries.map((e) => e.status),
      entries.map((e) => e.messageId),
    ]);
  }

  exitUnmailable(limit: number, tx: Db): Promise<(EndedRun & { account_id: string })[]> {
    return runSql(tx, sql.EXIT_UNMAILABLE, [limit]);
  }

  exitErased(accountId: AccountId, subscriberId: string, tx: Db): Promise<EndedRun[]> {
    return tx.$queryRaw(sql.exitErased(accountId, subscriberId));
  }

  async cancel(accountId: AccountId, id: string, tx: Db): Promise<boolean> {
    const rows = await tx.$queryRaw<{ id: string }[]>(sql.cancelRun(accountId, id));
    return rows.length > 0;
  }

  cancelAll(accountId: AccountId, automationId: string, tx: Db): Promise<number> {
    return tx.$executeRaw(sql.cancelAutomationRuns(accountId, automationId));
  }

  exitRemovedSteps(
    accountId: AccountId,
    automationId: string,
    stepIds: string[],
    tx: Db,
  ): Promise<EndedRun[]> {
    return tx.$queryRaw(sql.exitRemovedSteps(accountId, automationId, stepIds));
  }

  findById(accountId: AccountId, id: string): Promise<RunWithSteps | null> {
    return this.prisma.automationRun.findFirst({
      where: { accountId, id },
      include: { steps: { orderBy: { id: 'asc' } } },
    });
  }

  /** A page of an automation's runs, newest first, with optional filters. */
  listPage(
    accountId: AccountId,
    automationId: string,
    filters: { status?: AutomationRun['status']; subscriberId?: string },
    page: PageRequest,
  ): Promise<RunWithSteps[]> {
    return this.prisma.automationRun.findMany({
      where: {
        accountId,
        automationId,
        ...(filters.status ? { status: filters.status } : {}),
        ...(filters.subscriberId ? { subscriberId: filters.subscriberId } : {}),
        ...(page.afterId ? { id: { lt: page.afterId } } : {}),
      },
      include: { steps: { orderBy: { id: 'asc' } } },
      orderBy: { id: 'desc' },
      take: page.limit,
    });
  }

  /** A subscriber's runs across automations, newest first (the subscriber page). */
  bySubscriber(accountId: AccountId, subscriberId: string, limit: number): Promise<RunWithSteps[]> {
    return this.prisma.automationRun.findMany({
      where: { accountId, subscriberId },
      include: { steps: { orderBy: { id: 'asc' } } },
      orderBy: { id: 'desc' },
      take: limit,
    });
  }

  runCounts(accountId: AccountId, automationId: string) {
    return this.prisma.$queryRaw<{ status: string; exit_reason: string | null; n: number }[]>(
      sql.runCounts(accountId, automationId),
    );
  }

  stepEntries(accountId: AccountId, automationId: string) {
    return this.prisma.$queryRaw<{ step_id: string; n: number }[]>(
      sql.stepEntries(accountId, automationId),
    );
  }
}
