import { Injectable } from '@nestjs/common';
import { AutomationRunStatus } from '../../generated/prisma/client';
import { Principal } from '../../auth/principal';
import { AutomationStepSends } from '../../campaigns/core/automation-step-sends';
import { isUuid } from '../../platform/crypto/ids';
import { PrismaService } from '../../platform/database/prisma.service';
import {
  ConflictError,
  InvalidRequestError,
  NotFoundError,
  ValidationFailedError,
} from '../../platform/errors/api-errors';
import { Page } from '../../platform/pagination/page-request';
import { Paginator } from '../../platform/pagination/paginator';
import { isOneOf } from '../../platform/validation/one-of';
import { SubscribersService } from '../../subscribers/subscribers.service';
import { newId } from '../../platform/crypto/ids';
import { AutomationStep } from '../definition/automation-definition';
import { AutomationStatsResponse } from '../definition/automation.presenter';
import { AutomationsRepository } from '../definition/automations.repository';
import { AutomationsService } from '../definition/automations.service';
import { AutomationEnrolment } from './automation-enrolment';
import { AutomationRunResponse, presentRun } from './automation-run.presenter';
import { AutomationRunsRepository } from './automation-runs.repository';

/** Runs the subscriber page lists. */
const SUBSCRIBER_RUNS_SHOWN = 20;

const RUN_STATUSES: readonly AutomationRunStatus[] = [
  'waiting',
  'completed',
  'exited',
  'cancelled',
  'failed',
];

/** Runs on /v1 and the dashboard: lists, one run's timeline, cancel, manual enrolment, stats. */
@Injectable()
export class AutomationRunsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly automations: AutomationsService,
    private readonly definitions: AutomationsRepository,
    private readonly runs: AutomationRunsRepository,
    private readonly enrolment: AutomationEnrolment,
    private readonly subscribers: SubscribersService,
    private readonly sends: AutomationStepSends,
    private readonly paginator: Paginator,
  ) {}

  async list(
    caller: Principal,
    automationId: string,
    query: { limit?: unknown; cursor?: unknown; status?: unknown; subscriber_id?: unknown },
  ): Promise<Page<AutomationRunResponse>> {
    await this.automations.find(caller.accountId, automationId);
    const status = query.status;
    if (status !== undefined && !isOneOf(RUN_STATUSES, status)) {
      throw new InvalidRequestError(`status must be one of ${RUN_STATUSES.join(', ')}.`);
    }
    const subscriberId = query.subscriber_id;
    if (subscriberId !== undefined && (typeof subscriberId !== 'string' || !isUuid(subscriberId))) {
      throw new InvalidRequestError('subscriber_id must be a subscriber id.');
    }
    return this.paginator.page(
      caller.accountId,
      `automation-runs:${automationId}`,
      query,
      (request) =>
        this.runs.listPage(
          caller.accountId,
          automationId,
          {
            status: status,
            subscriberId: subscriberId,
          },
          request,
        ),
      presentRun,
    );
  }

  async get(caller: Principal, id: string): Promise<AutomationRunResponse> {
    const row = isUuid(id) ? await this.runs.findById(caller.accountId, id) : null;
    if (!row) throw new NotFoundError('automation run');
    return presentRun(row);
  }

  /** A subscriber's latest runs across automations (the dashboard's subscriber page). */
  async ofSubscriber(
    caller: Principal,
    subscriberId: string,
  ): Promise<{ data: AutomationRunResponse[] }> {
    if (!isUuid(subscriberId)) return { data: [] };
    const rows = await this.runs.bySubscriber(
      caller.accountId,
      subscriberId,
      SUBSCRIBER_RUNS_SHOWN,
    );
    return { data: rows.map(presentRun) };
  }

  /** A waiting run ends `cancelled`; a run that already ended → 409. */
  async cancel(caller: Principal, id: string): Promise<AutomationRunResponse> {
    await this.get(caller, id);
    const cancelled = await this.prisma.$transaction((tx) =>
      this.runs.cancel(caller.accountId, id, tx),
    );
    if (!cancelled) throw new ConflictError('The run has ended already.');
    return this.get(caller, id);
  }

  /**
   * Enrols one subscriber by hand, whatever the trigger: the trigger's filter and the reentry
   * rule still apply (409 when they turn the subscriber away). A draft enrols nobody.
   */
  async enrol(
    caller: Principal,
    automationId: string,
    subscriberId: string,
  ): Promise<AutomationRunResponse> {
    const automation = await this.automations.find(caller.accountId, automationId);
    if (automation.status === 'draft') {
      throw new ConflictError('A draft automation enrols nobody: activate it first.');
    }
    const subscriber = isUuid(subscriberId)
      ? await this.subscribers.findRow(caller.accountId, subscriberId)
      : null;
    if (!subscriber) {
      throw new ValidationFailedError([
        { field: 'subscriber_id', code: 'not_found', message: 'No such subscriber.' },
      ]);
    }
    const [run] = await this.prisma.$transaction((tx) =>
      this.enrolment.enrol(automation, [{ subscriberId, key: `manual:${newId()}` }], tx),
    );
    if (!run) {
      throw new ConflictError(
        'The subscriber cannot enter this automation (its filter or reentry rule turns them away).',
      );
    }
    return this.get(caller, run.id);
  }

  async stats(caller: Principal, automationId: string): Promise<AutomationStatsResponse> {
    const automation = await this.automations.find(caller.accountId, automationId);
    const counts = await this.runs.runCounts(caller.accountId, automationId);
    const entries = new Map(
      (await this.runs.stepEntries(caller.accountId, automationId)).map((r) => [r.step_id, r.n]),
    );
    const campaigns = await this.definitions.stepCampaigns(automationId);
    const exited: Record<string, number> = {};
    let entered = 0;
    let waiting = 0;
    let completed = 0;
    for (const row of counts) {
      entered += row.n;
      if (row.status === 'waiting') waiting += row.n;
      if (row.status === 'completed') completed += row.n;
      if (row.status === 'exited') {
        const reason = row.exit_reason ?? 'unknown';
        exited[reason] = (exited[reason] ?? 0) + row.n;
      }
    }
    const steps = [];
    for (const step of automation.steps as unknown as AutomationStep[]) {
      const sent = await this.sends.counts(caller.accountId, campaigns.get(step.id) ?? []);
      steps.push({
        step_id: step.id,
        entered: entries.get(step.id) ?? 0,
        sent: sent.sent,
        delivered: sent.delivered,
        opens: sent.opens,
        unique_opens: sent.uniqueOpens,
        clicks: sent.clicks,
        unique_clicks: sent.uniqueClicks,
      });
    }
    return { entered, waiting, completed, exited, steps };
  }
}
