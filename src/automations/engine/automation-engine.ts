import { Inject, Injectable } from '@nestjs/common';
import { Automation } from '../../generated/prisma/client';
import { AutomationStepSends, StepContent } from '../../campaigns/core/automation-step-sends';
import { HeraldConfig } from '../../platform/config/config';
import { CONFIG } from '../../platform/config/config.module';
import { accountIdOfRow, AccountId } from '../../platform/database/account-id';
import type { Db } from '../../platform/database/db';
import { PrismaService } from '../../platform/database/prisma.service';
import { PeriodicService } from '../../platform/timing/periodic-task';
import { SegmentsService } from '../../segments/segments.service';
import { TemplatesService } from '../../templates/templates.service';
import {
  ENGINE_BATCH,
  ENGINE_BATCHES_PER_PASS,
  ENGINE_TICK_MS,
  MAX_HOPS_PER_PASS,
} from '../automations.settings';
import { AutomationStep, followingStep } from '../definition/automation-definition';
import { defaultFrom } from '../definition/default-from';
import { AutomationsRepository } from '../definition/automations.repository';
import { AutomationRunEvents } from '../runs/automation-run-events';
import {
  AutomationRunsRepository,
  DueRun,
  RunAdvance,
  TimelineEntry,
} from '../runs/automation-runs.repository';
import * as sql from './automation-engine.sql';

/** What the engine knows of a run's subscriber when it claims the run. */
interface SubscriberFacts {
  status: string;
  suppressed: boolean;
}

/** What one engine transaction decides, written in bulk at its end. */
class PassPlan {
  readonly advances: RunAdvance[] = [];
  readonly timeline: TimelineEntry[] = [];
  /** Messages to queue, per step campaign. */
  readonly sends = new Map<string, { accountId: AccountId; subscriberIds: string[] }>();
  /** Runs that ended, per account, for their webhook events. */
  readonly ended = new Map<AccountId, RunAdvance[]>();

  end(accountId: AccountId, advance: RunAdvance): void {
    this.advances.push(advance);
    this.ended.set(accountId, [...(this.ended.get(accountId) ?? []), advance]);
  }
}

/**
 * The automation engine: every pass claims runs whose next step is due (a query over
 * PostgreSQL, FOR UPDATE SKIP LOCKED, so any number of workers share the work and a wait
 * survives restarts and the loss of Redis), walks each through its steps until it waits or
 * ends, and writes everything in the same transaction: where each run goes, its timeline, and
 * for a send step one row in the send ledger of the step's hidden campaign. A worker killed
 * mid-pass leaves the transaction undone and the runs due again; a committed send step is a
 * ledger row, which the campaign delivery sends once, under its own exactly-once bound.
 */
@Injectable()
export class AutomationEngine extends PeriodicService {
  constructor(
    @Inject(CONFIG) private readonly config: HeraldConfig,
    private readonly prisma: PrismaService,
    private readonly automations: AutomationsRepository,
    private readonly runs: AutomationRunsRepository,
    private readonly sends: AutomationStepSends,
    private readonly templates: TemplatesService,
    private readonly segments: SegmentsService,
    private readonly events: AutomationRunEvents,
  ) {
    super('automation engine pass', ENGINE_TICK_MS);
  }

  protected async pass(): Promise<void> {
    for (let i = 0; i < ENGINE_BATCHES_PER_PASS; i++) {
      if ((await this.runBatch()) < ENGINE_BATCH) return;
    }
  }

  /** One transaction over up to ENGINE_BATCH due runs; returns how many it claimed. */
  private async runBatch(): Promise<number> {
    const deliveries: { accountId: AccountId; campaignId: string; batch: number }[] = [];
    const claimed = await this.prisma.$transaction(
      async (tx) => {
        const due = await this.runs.claimDue(ENGINE_BATCH, tx);
        if (due.length === 0) return 0;
        const automations = new Map(
          (await this.automations.findByIds([...new Set(due.map((r) => r.automation_id))], tx)).map(
            (a) => [a.id, a],
          ),
        );
        const facts = await this.subscriberFacts(due, tx);
        const plan = new PassPlan();
        const campaigns = new Map<string, string | null>();
        for (const run of due) {
          await this.walk(tx, run, automations.get(run.automation_id), facts, plan, campaigns);
        }
        for (const [campaignId, { accountId, subscriberIds }] of plan.sends) {
          const batch = await this.sends.add(accountId, campaignId, subscriberIds, tx);
          deliveries.push({ accountId, campaignId, batch });
        }
        await this.runs.advance(plan.advances, tx);
        await this.runs.record(plan.timeline, tx);
        for (const [accountId, ended] of plan.ended) {
          const runsById = new Map(due.map((r) => [r.id, r]));
          await this.events.ended(
            tx,
            accountId,
            ended.map((advance) => ({
              id: advance.id,
              automation_id: runsById.get(advance.id)!.automation_id,
              subscriber_id: runsById.get(advance.id)!.subscriber_id,
              exit_reason: advance.reason,
              ended_at: new Date(),
              status: advance.status as 'completed' | 'exited' | 'failed',
            })),
          );
        }
        return due.length;
      },
      { timeout: 60_000, maxWait: 10_000 },
    );
    for (const { accountId, campaignId, batch } of deliveries) {
      // A lost enqueue loses nothing: the campaign watchdog finds the pending rows.
      await this.sends.deliver(accountId, campaignId, [batch]).catch((error: unknown) => {
        this.logger.warn(`automation send of ${campaignId} not queued yet: ${String(error)}`);
      });
    }
    return claimed;
  }

  private async subscriberFacts(due: DueRun[], tx: Db): Promise<Map<string, SubscriberFacts>> {
    const ids = due.map((r) => r.subscriber_id).filter((id): id is string => id !== null);
    if (ids.length === 0) return new Map();
    const rows = await tx.$queryRaw<{ id: string; status: string; suppressed: boolean }[]>(
      sql.subscriberFacts([...new Set(ids)]),
    );
    return new Map(rows.map((row) => [row.id, row]));
  }

  /**
   * Takes one run as far as it goes now: through sends and conditions, up to a wait (the run
   * waits) or its end. A subscriber who is no longer mailable makes the run leave first.
   */
  private async walk(
    tx: Db,
    run: DueRun,
    automation: Automation | undefined,
    facts: Map<string, SubscriberFacts>,
    plan: PassPlan,
    campaigns: Map<string, string | null>,
  ): Promise<void> {
    const accountId = accountIdOfRow(run.account_id);
    const end = (status: RunAdvance['status'], reason: string | null, stepId: string | null) =>
      plan.end(accountId, { id: run.id, status, stepId, inWait: false, nextAt: null, reason });
    const subscriber = run.subscriber_id ? facts.get(run.subscriber_id) : undefined;
    if (!automation) return end('exited', 'automation_deleted', run.current_step_id);
    if (!run.subscriber_id || !subscriber) return end('exited', 'erased', run.current_step_id);
    const leaving = exitReasonOf(subscriber);
    if (leaving) return end('exited', leaving, run.current_step_id);

    const steps = automation.steps as unknown as AutomationStep[];
    const position = new Map(steps.map((step, i) => [step.id, i]));
    let stepId = run.current_step_id;
    let inWait = run.in_wait;
    const note = (step: AutomationStep, status: TimelineEntry['status'], messageId?: string) =>
      plan.timeline.push({
        runId: run.id,
        stepId: step.id,
        type: step.type,
        status,
        messageId: messageId ?? null,
      });

    for (let hops = 0; hops < MAX_HOPS_PER_PASS; hops++) {
      if (stepId === null) return end('completed', null, null);
      const at = position.get(stepId);
      // The step was removed by an edit while the run waited for it.
      if (at === undefined) return end('exited', 'step_removed', stepId);
      const step = steps[at];
      if (inWait) {
        // The wait is over.
        note(step, 'done');
        inWait = false;
        stepId = followingStep(steps, at);
        continue;
      }
      switch (step.type) {
        case 'wait':
          plan.advances.push({
            id: run.id,
            status: 'waiting',
            stepId,
            inWait: true,
            nextAt: new Date(Date.now() + step.seconds * 1000),
            reason: null,
          });
          return;
        case 'exit':
          note(step, 'done');
          return end('exited', 'exit_step', stepId);
        case 'condition': {
          const holds = await this.conditionHolds(tx, accountId, run, step.if, campaigns);
          note(step, 'done');
          stepId = holds ? step.then : step.else;
          continue;
        }
        case 'send': {
          const campaignId = await this.campaignOf(
            tx,
            accountId,
            automation,
            step,
            run.entry,
            campaigns,
          );
          if (campaignId === null) {
            note(step, 'failed');
            return end('failed', 'template_missing', stepId);
          }
          if (subscriber.status !== 'subscribed') {
            // Not opted in (a status other than Herald's own): nothing is sent.
            note(step, 'skipped');
          } else {
            const queued = plan.sends.get(campaignId) ?? { accountId, subscriberIds: [] };
            queued.subscriberIds.push(run.subscriber_id);
            plan.sends.set(campaignId, queued);
            // The Message-ID the campaign delivery sets (campaign id, subscriber id).
            note(step, 'done', `${campaignId}.${run.subscriber_id}`);
          }
          stepId = followingStep(steps, at);
          continue;
        }
      }
    }
    // Out of hops in this pass (a long chain of sends and conditions): go on in the next.
    plan.advances.push({
      id: run.id,
      status: 'waiting',
      stepId,
      inWait: false,
      nextAt: new Date(),
      reason: null,
    });
  }

  private async conditionHolds(
    tx: Db,
    accountId: AccountId,
    run: DueRun,
    test: Extract<AutomationStep, { type: 'condition' }>['if'],
    campaigns: Map<string, string | null>,
  ): Promise<boolean> {
    const subscriberId = run.subscriber_id!;
    if ('filter' in test) {
      const [row] = await tx.$queryRaw<{ matches: boolean }[]>(
        sql.subscriberMatches(accountId, subscriberId, this.segments.filterSql(test.filter)),
      );
      return row?.matches ?? false;
    }
    const sendStepId = 'opened' in test ? test.opened : test.clicked;
    const key = `${run.automation_id}:${sendStepId}:${run.entry}`;
    const campaignId =
      campaigns.get(key) ??
      (await this.automations.stepCampaign(run.automation_id, sendStepId, run.entry, tx));
    if (!campaignId) return false;
    const activity = await this.sends.activity(accountId, [{ campaignId, subscriberId }]);
    const seen = activity.get(`${campaignId}.${subscriberId}`);
    return 'opened' in test ? (seen?.opened ?? false) : (seen?.clicked ?? false);
  }

  /**
   * The hidden campaign of this send step for the run's entry, made on first use with the
   * template's content; null when the template is gone.
   */
  private async campaignOf(
    tx: Db,
    accountId: AccountId,
    automation: Automation,
    step: Extract<AutomationStep, { type: 'send' }>,
    generation: number,
    cache: Map<string, string | null>,
  ): Promise<string | null> {
    const key = `${automation.id}:${step.id}:${generation}`;
    const cached = cache.get(key);
    if (cached !== undefined) return cached;
    let campaignId = await this.automations.stepCampaign(automation.id, step.id, generation, tx);
    if (!campaignId) {
      await this.automations.lockStepCampaign(automation.id, step.id, generation, tx);
      campaignId = await this.automations.stepCampaign(automation.id, step.id, generation, tx);
    }
    if (!campaignId) {
      const content = await stepContent(this.templates, this.config, accountId, step);
      if (!content) {
        cache.set(key, null);
        return null;
      }
      campaignId = await this.sends.createCampaign(
        accountId,
        automation.id,
        `${automation.name} · ${step.id}${generation > 0 ? ` · ${generation + 1}` : ''}`,
        content,
        tx,
      );
      await this.automations.addStepCampaign(
        accountId,
        automation.id,
        step.id,
        generation,
        campaignId,
        tx,
      );
    }
    cache.set(key, campaignId);
    return campaignId;
  }
}

/** What a send step mails: its template's content, subject and From unless it sets its own. */
export async function stepContent(
  templates: TemplatesService,
  config: HeraldConfig,
  accountId: AccountId,
  step: Extract<AutomationStep, { type: 'send' }>,
): Promise<StepContent | undefined> {
  const template = await templates.findRow(accountId, step.template_id);
  if (!template) return undefined;
  return {
    subject: step.subject ?? template.subject,
    from: step.from ?? defaultFrom(config),
    templateId: template.id,
    html: template.html,
    text: template.text,
  };
}

/** Why a run must leave now, or null while its subscriber is mailable. */
function exitReasonOf(subscriber: SubscriberFacts): string | null {
  if (['unsubscribed', 'bounced', 'complained'].includes(subscriber.status)) {
    return subscriber.status;
  }
  return subscriber.suppressed ? 'suppressed' : null;
}
