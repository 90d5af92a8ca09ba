import { Inject, Injectable, Logger } from '@nestjs/common';
import { Automation, Prisma } from '../../generated/prisma/client';
import { AuditLog } from '../../audit/audit-log';
import { Principal } from '../../auth/principal';
import { AutomationStepSends } from '../../campaigns/core/automation-step-sends';
import { SenderDomainsService } from '../../domains/sender-domains.service';
import { HeraldConfig } from '../../platform/config/config';
import { CONFIG } from '../../platform/config/config.module';
import { isUuid, newId } from '../../platform/crypto/ids';
import type { AccountId } from '../../platform/database/account-id';
import type { Db } from '../../platform/database/db';
import { PrismaService } from '../../platform/database/prisma.service';
import {
  ConflictError,
  ErrorDetail,
  NotFoundError,
  ValidationFailedError,
} from '../../platform/errors/api-errors';
import { ListQuery, Page } from '../../platform/pagination/page-request';
import { Paginator } from '../../platform/pagination/paginator';
import { SegmentsService } from '../../segments/segments.service';
import { TemplatesService } from '../../templates/templates.service';
import { stepContent } from '../engine/automation-engine';
import { AutomationRunEvents } from '../runs/automation-run-events';
import { AutomationRunsRepository } from '../runs/automation-runs.repository';
import { AutomationSegmentBaseline } from '../triggers/automation-segment-baseline';
import {
  AutomationStep,
  AutomationTrigger,
  checkReentry,
  checkSteps,
  checkTrigger,
  Reentry,
} from './automation-definition';
import { CreateAutomationDto, UpdateAutomationDto } from './automation.dto';
import { AutomationResponse, presentAutomation } from './automation.presenter';
import { AutomationColumns, AutomationsRepository } from './automations.repository';

/**
 * Automations on /v1 and the dashboard: definitions (validated as a whole, every problem at
 * its path), and the status: draft → active ⇄ paused. An edit is allowed while nothing runs
 * it (draft or paused); runs then go on at their step's id, and a run whose step is gone
 * leaves (`step_removed`).
 */
@Injectable()
export class AutomationsService {
  private readonly logger = new Logger(AutomationsService.name);

  constructor(
    @Inject(CONFIG) private readonly config: HeraldConfig,
    private readonly prisma: PrismaService,
    private readonly automations: AutomationsRepository,
    private readonly runs: AutomationRunsRepository,
    private readonly runEvents: AutomationRunEvents,
    private readonly sends: AutomationStepSends,
    private readonly templates: TemplatesService,
    private readonly segments: SegmentsService,
    private readonly senderDomains: SenderDomainsService,
    private readonly segmentBaseline: AutomationSegmentBaseline,
    private readonly paginator: Paginator,
    private readonly audit: AuditLog,
  ) {}

  list(caller: Principal, query: ListQuery): Promise<Page<AutomationResponse>> {
    return this.paginator.list(caller.accountId, query, this.automations, presentAutomation);
  }

  async get(caller: Principal, id: string): Promise<AutomationResponse> {
    return presentAutomation(await this.find(caller.accountId, id));
  }

  async create(caller: Principal, body: CreateAutomationDto): Promise<AutomationResponse> {
    const columns = await this.checked(caller.accountId, body);
    const row = await this.automations.create(caller.accountId, newId(), {
      name: body.name,
      ...columns,
    });
    await this.audit.recordBy(caller, {
      action: 'automation.created',
      metadata: { automation_id: row.id },
    });
    return presentAutomation(row);
  }

  async update(
    caller: Principal,
    id: string,
    body: UpdateAutomationDto,
  ): Promise<AutomationResponse> {
    const current = await this.find(caller.accountId, id);
    if (current.status === 'active') {
      throw new ConflictError('An active automation cannot be edited: pause it first.');
    }
    const merged = {
      trigger: body.trigger ?? current.trigger,
      steps: body.steps ?? current.steps,
      reentry: body.reentry ?? current.reentry,
    };
    const columns = await this.checked(caller.accountId, merged);
    const row = await this.prisma.$transaction(async (tx) => {
      const updated = await this.automations.updateEditable(
        caller.accountId,
        id,
        { ...columns, ...(body.name !== undefined ? { name: body.name } : {}) },
        tx,
      );
      if (!updated)
        throw new ConflictError('An active automation cannot be edited: pause it first.');
      const steps = updated.steps as unknown as AutomationStep[];
      const exited = await this.runs.exitRemovedSteps(
        caller.accountId,
        id,
        steps.map((s) => s.id),
        tx,
      );
      await this.runEvents.ended(
        tx,
        caller.accountId,
        exited.map((run) => ({ ...run, automation_id: id, status: 'exited' as const })),
      );
      await this.syncSendContent(caller.accountId, updated, tx);
      return updated;
    });
    await this.audit.recordBy(caller, {
      action: 'automation.updated',
      metadata: { automation_id: id },
    });
    return presentAutomation(row);
  }

  async delete(caller: Principal, id: string): Promise<void> {
    await this.find(caller.accountId, id);
    await this.prisma.$transaction(async (tx) => {
      await this.runs.cancelAll(caller.accountId, id, tx);
      const campaigns = await this.automations.stepCampaigns(id, tx);
      await this.sends.cancel(caller.accountId, [...campaigns.values()].flat(), tx);
      await this.automations.delete(caller.accountId, id, tx);
    });
    await this.audit.recordBy(caller, {
      action: 'automation.deleted',
      metadata: { automation_id: id },
    });
  }

  /**
   * draft or paused → active. Only what happens from now on enrols: the segment members of
   * now are the baseline of segment entry, and subscribers created before now never enter.
   * Steps that fell due while paused run at once, and step campaigns the reputation guard
   * paused (which paused the automation) send again, judged from here on.
   */
  async activate(caller: Principal, id: string): Promise<AutomationResponse> {
    await this.find(caller.accountId, id);
    let resumed: string[] = [];
    const row = await this.prisma.$transaction(async (tx) => {
      // Campaign rows first, then the automation's: the order the guard's pause takes them in.
      const campaigns = await this.automations.stepCampaigns(id, tx);
      resumed = await this.sends.resumePaused(caller.accountId, [...campaigns.values()].flat(), tx);
      const now = new Date();
      const activated = await this.automations.transition(
        caller.accountId,
        id,
        ['draft', 'paused'],
        'active',
        tx,
        { activatedAt: now, createdCursor: now },
      );
      if (!activated) throw new ConflictError('The automation is active already.');
      await this.segmentBaseline.baseline(activated, tx);
      return activated;
    });
    await this.audit.recordBy(caller, {
      action: 'automation.activated',
      metadata: { automation_id: id },
    });
    await this.sends.redeliver(caller.accountId, resumed).catch((error: unknown) => {
      // The campaign watchdog finds their pending messages instead.
      this.logger.warn(`automation ${id}: resumed sends not queued yet: ${String(error)}`);
    });
    return presentAutomation(row);
  }

  /** active → paused: nothing enrols, and runs wait where they are. */
  async pause(caller: Principal, id: string): Promise<AutomationResponse> {
    await this.find(caller.accountId, id);
    const row = await this.prisma.$transaction((tx) =>
      this.automations.transition(caller.accountId, id, ['active'], 'paused', tx),
    );
    if (!row) throw new ConflictError('Only an active automation can be paused.');
    await this.audit.recordBy(caller, {
      action: 'automation.paused',
      metadata: { automation_id: id },
    });
    return presentAutomation(row);
  }

  async find(accountId: AccountId, id: string): Promise<Automation> {
    const row = isUuid(id) ? await this.automations.findById(accountId, id) : null;
    if (!row) throw new NotFoundError('automation');
    return row;
  }

  /**
   * Trigger, steps and reentry checked as a whole, with everything that needs the database
   * (templates, segment, verified From); every problem is reported at once, at its path.
   */
  private async checked(
    accountId: AccountId,
    body: { trigger?: unknown; steps?: unknown; reentry?: unknown },
  ): Promise<Omit<AutomationColumns, 'name'>> {
    const errors: ErrorDetail[] = [];
    const trigger = checkTrigger(body.trigger, errors);
    const steps = checkSteps(body.steps, errors);
    const reentry = checkReentry(body.reentry, errors);
    if (trigger?.type === 'segment_entered') {
      if (!(await this.segments.exists(accountId, trigger.segment_id))) {
        errors.push({
          field: 'trigger.segment_id',
          code: 'not_found',
          message: 'No such segment.',
        });
      }
    }
    for (const [i, step] of (steps ?? []).entries()) {
      if (step.type !== 'send') continue;
      const template = isUuid(step.template_id)
        ? await this.templates.findRow(accountId, step.template_id)
        : null;
      if (!template) {
        errors.push({
          field: `steps[${i}].template_id`,
          code: 'not_found',
          message: 'No such template.',
        });
      }
      if (step.from !== undefined) await this.checkFrom(accountId, step.from, i, errors);
    }
    if (errors.length > 0 || !trigger || !steps || !reentry) {
      throw new ValidationFailedError(errors);
    }
    return {
      trigger: trigger as unknown as Prisma.InputJsonObject,
      steps: steps as unknown as Prisma.InputJsonArray,
      reentry: reentry satisfies Reentry,
      triggerType: trigger.type,
      triggerRef: triggerRef(trigger),
    };
  }

  private async checkFrom(accountId: AccountId, from: string, i: number, errors: ErrorDetail[]) {
    try {
      await this.senderDomains.assertCanSendFrom(accountId, from);
    } catch (error) {
      if (!(error instanceof ValidationFailedError)) throw error;
      for (const detail of error.details) errors.push({ ...detail, field: `steps[${i}].from` });
    }
  }

  /** The step campaigns made so far send the edited content of their step. */
  private async syncSendContent(accountId: AccountId, automation: Automation, tx: Db) {
    const campaigns = await this.automations.stepCampaigns(automation.id, tx);
    for (const step of automation.steps as unknown as AutomationStep[]) {
      const ids = step.type === 'send' ? campaigns.get(step.id) : undefined;
      if (!ids || step.type !== 'send') continue;
      const content = await stepContent(this.templates, this.config, accountId, step);
      if (content) await this.sends.updateContent(accountId, ids, content, tx);
    }
  }
}

/** What the trigger names, for the lookups by trigger. */
function triggerRef(trigger: AutomationTrigger): string | null {
  if (trigger.type === 'segment_entered') return trigger.segment_id;
  if (trigger.type === 'event') return trigger.name;
  return null;
}
