import { OnWorkerEvent, Processor } from '@nestjs/bullmq';
import { setTimeout as sleep } from 'node:timers/promises';
import { DelayedError, Job, WaitingError } from 'bullmq';
import { AccountsService } from '../../accounts/accounts.service';
import { SenderDomainsService } from '../../domains/sender-domains.service';
import { ShutdownState } from '../../platform/lifecycle';
import { SenderIdentity } from '../../domains/sender-identity';
import { Campaign, Subscriber } from '../../generated/prisma/client';
import { FooterSender } from '../content/opt-out-footer';
import { AccountId, parseAccountId } from '../../platform/database/account-id';
import { retryTransient } from '../../platform/database/retry-transient';
import { ValidationFailedError } from '../../platform/errors/api-errors';
import {
  MailDeliveryError,
  MailTransport,
  MayFinish,
  messageIdHeader,
  OutgoingMessage,
  withoutAddresses,
} from '../../platform/mail/mail-transport';
import { QueueProcessor, workerOptions } from '../../platform/queue/queue-processor';
import { QUEUES } from '../../platform/queue/queue.module';
import { SendSlots } from '../../platform/mail/send-slots';
import { RECORD_ATTEMPTS, RECORD_RETRY_MAX_MS } from '../../platform/settings';
import {
  DELIVERY_CHUNK,
  DELIVERY_CONCURRENCY,
  DELIVERY_WINDOW,
  RECORD_BATCH,
} from '../core/campaigns.settings';
import { SubscribersService } from '../../subscribers/subscribers.service';
import { SuppressionList } from '../../suppression/suppression-list';
import {
  CompiledMessage,
  TemplateRenderError,
  unrenderable,
} from '../../templates/template-renderer';
import { CampaignCompletion } from '../core/campaign-completion';
import { compileCampaignContent, footerSenderOf } from '../content/campaign-content';
import { CampaignDeliveryGates } from './campaign-delivery-gate';
import {
  CampaignDeliveryRunsRepository,
  RunIdentity,
} from '../ledger/campaign-delivery-runs.repository';
import { CampaignLedgerRepository } from '../ledger/campaign-ledger.repository';
import { skipReasonOf } from '../ledger/mailability';
import { CampaignMessageBuilder } from '../content/campaign-message';
import { CampaignOutcomeWriter } from './campaign-outcome-writer';
import { DeliveryJob } from '../core/campaign-send-queue';
import { CampaignsRepository } from '../core/campaigns.repository';
import { DeliveryLease } from './delivery-lease';
import { OutcomeRecorder } from './outcome-recorder';
import { LoggedMessage, Outcome } from '../ledger/recipient-outcome';
import { ReputationGuard } from '../core/reputation-guard';

/** A claimed recipient's row, and whether the address is suppressed right now. */
type RecipientRow = Subscriber & { suppressed: boolean };

/** What every message of a campaign shares, prepared once per job. */
interface CampaignContent {
  campaign: Campaign;
  compiled: CompiledMessage;
  footer: FooterSender;
  sender: SenderIdentity | undefined;
}

/** How a run ended, beyond the outcomes it wrote. */
interface RunEnd {
  /** The campaign is no longer sending (paused or cancelled): claim nothing more. */
  stopped: boolean;
  /** PostgreSQL failed a claim: the job is retried once it is back. */
  storeError?: Error;
  /** How many rows the run claimed. */
  claimed: number;
}

/** A wake-up this close is not worth a round trip through the delayed queue. */
const WAKE_NOW_MS = 500;

/**
 * Delivers one batch of a campaign as a delivery run: a lease-holding owner of the ledger
 * rows it claims (pending, deferred and due, or left by a run whose lease expired), a chunk at
 * a time. Each message is rendered with the template compiled once per job, handed to SMTP
 * only when a pool connection is free and the lease still holds, and its outcome written in a
 * small bulk write fenced on the run. Temporary refusals are deferred in the ledger; when the
 * batch's next try lies in the future, the job waits in BullMQ's delayed set until then.
 */
@Processor(QUEUES.campaignDelivery, workerOptions(DELIVERY_CONCURRENCY))
export class CampaignDeliveryProcessor extends QueueProcessor {
  constructor(
    private readonly campaigns: CampaignsRepository,
    private readonly ledger: CampaignLedgerRepository,
    private readonly runs: CampaignDeliveryRunsRepository,
    private readonly outcomes: CampaignOutcomeWriter,
    private readonly completion: CampaignCompletion,
    private readonly subscribers: SubscribersService,
    private readonly messages: CampaignMessageBuilder,
    private readonly transport: MailTransport,
    private readonly slots: SendSlots,
    private readonly senderDomains: SenderDomainsService,
    private readonly accounts: AccountsService,
    private readonly suppressions: SuppressionList,
    private readonly gates: CampaignDeliveryGates,
    private readonly guard: ReputationGuard,
    private readonly shutdown: ShutdownState,
  ) {
    super('the campaign delivery worker');
  }

  /** An attempt that failed (a store away, a lapsed lease) is retried; say why, once. */
  @OnWorkerEvent('failed')
  onFailed(job: Job<DeliveryJob> | undefined, error: Error): void {
    if (error instanceof DelayedError || error instanceof WaitingError) return;
    this.logger.warn(`delivery job ${job?.id ?? '?'} failed: ${withoutAddresses(error.message)}`);
  }

  async process(job: Job<DeliveryJob>, token?: string): Promise<void> {
    const accountId = parseAccountId(job.data.accountId);
    const { campaignId, batch } = job.data;
    // Relay connections open while the job reads what it needs (see openConnections).
    this.transport.openConnections();
    const campaign = await this.campaigns.findById(accountId, campaignId);
    if (!campaign || campaign.status !== 'sending') return;
    // Runs of this batch whose workers died or froze: their counts move to the campaign now;
    // their claims are taken over by this run's claims.
    await this.runs.foldExpired(accountId, campaignId, batch);
    const content = await this.prepare(accountId, campaign);

    for (;;) {
      const lease = await DeliveryLease.acquire(this.runs, accountId, campaignId, batch);
      let end: RunEnd;
      try {
        end = await this.deliver(content, lease);
        // Everything in flight has settled: what a pause kept from the relay waits for a resume
        // as pending rows, not as claims of a run that has ended.
        if (lease.wasHalted) await this.ledger.releaseUnsent(lease.run);
      } finally {
        lease.release();
        await this.runs.end(lease.run).catch((error: unknown) => {
          // Its counts stay on the run, which expires and is folded by the next run or at
          // completion: nothing is lost.
          this.logger.warn(
            `campaign ${campaignId} batch ${batch}: run not ended: ${String(error)}`,
          );
        });
      }
      if (end.stopped || lease.wasHalted) return;
      // Frozen or cut off past the lease: another run may own the batch now. Failing hands the
      // job back to BullMQ (if this worker still holds it), whose next attempt starts afresh.
      if (lease.lost) throw new Error(`campaign ${campaignId} batch ${batch}: the lease lapsed`);
      if (end.storeError !== undefined) throw end.storeError;
      const wake = await this.ledger.nextWake(accountId, campaignId, batch);
      if (wake === undefined) {
        await this.completion.completeIfFinished(accountId, campaignId);
        return;
      }
      const delay = wake.getTime() - Date.now();
      if (delay > WAKE_NOW_MS) {
        // Deferred recipients or another live run's claims: come back when they are due.
        await job.moveToDelayed(wake.getTime(), token);
        throw new DelayedError();
      }
      // Told to stop (SIGTERM): the run claimed nothing more and its messages in flight are
      // out and recorded, so the rest of the batch goes back to the queue for another worker
      // now, rather than waiting for this job's lock to lapse.
      if (this.shutdown.stopping) {
        await job.moveToWait(token);
        throw new WaitingError();
      }
      // Claimable now (claims orphaned by a run that just ended, a row released meanwhile);
      // a run that could claim nothing waits a moment rather than spin.
      if (end.claimed === 0) await sleep(WAKE_NOW_MS);
    }
  }

  /**
   * HTML-only content gets a text part, converted once per job from the template itself
   * (merge fields survive the conversion), not once per recipient; each part without an
   * unsubscribe link of its own gets the footer. A template that no longer compiles fails
   * each message with the reason (logged), not the job: retrying it would not help, and would
   * leave the campaign sending. One From per campaign: its signing key is looked up once.
   */
  private async prepare(accountId: AccountId, campaign: Campaign): Promise<CampaignContent> {
    const compiled = await compileCampaignContent(campaign.subject, campaign).catch(
      (error: unknown) => {
        if (!(error instanceof ValidationFailedError)) throw error;
        return unrenderable(error);
      },
    );
    const footer = await footerSenderOf(this.accounts, accountId);
    const sender = await this.senderDomains.signingIdentity(accountId, campaign.fromAddress);
    return { campaign, compiled, footer, sender };
  }

  /**
   * One run: keeps the window full (the next chunk is claimed as soon as there is room for it)
   * and writes every outcome as soon as it is known, not when the whole chunk is done. Stops
   * claiming when the batch has nothing claimable, the campaign stops sending, the lease no
   * longer holds or PostgreSQL fails; always waits for what is in flight and its outcomes.
   */
  private async deliver(content: CampaignContent, lease: DeliveryLease): Promise<RunEnd> {
    const run = lease.run;
    const recorder = new OutcomeRecorder((outcomes) => this.recordUntilWritten(lease, outcomes), {
      maxBatch: RECORD_BATCH,
    });
    const gate = this.gates.open(run.accountId, content.campaign, lease);
    const end: RunEnd = { stopped: false, claimed: 0 };
    let inFlight = 0;
    let slotFreed: (() => void) | undefined;
    let exhausted = false;

    for (;;) {
      if (!exhausted && !recorder.failed && inFlight + DELIVERY_CHUNK <= DELIVERY_WINDOW) {
        try {
          const chunk = await this.claimChunk(run, lease, gate, end);
          if (chunk === undefined) {
            exhausted = true;
            continue;
          }
          exhausted = chunk.last;
          const ids = chunk.ids;
          const subscribers = await this.subscribersById(run.accountId, ids);
          for (const subscriberId of ids) {
            inFlight++;
            // deliverOne never rejects: every failure is an outcome, recorded before it resolves.
            void this.deliverOne(
              content,
              lease,
              recorder,
              subscriberId,
              subscribers.get(subscriberId),
            ).then(() => {
              inFlight--;
              slotFreed?.();
            });
          }
        } catch (error) {
          // Rows claimed but not read stay this run's claims, taken over by the next run.
          end.storeError = error instanceof Error ? error : new Error(String(error));
          exhausted = true;
        }
        continue;
      }
      if (inFlight === 0) break;
      await new Promise<void>((resolve) => (slotFreed = resolve));
      slotFreed = undefined;
    }
    await recorder.close();
    return end;
  }

  /**
   * The next chunk of the run's claims (`last` when the batch had no more to give), or
   * undefined when it should claim no more: the lease no longer holds, the process is
   * stopping, the campaign stopped sending (noted in `end`), or the batch has nothing
   * left to claim now. Throttled campaigns are admitted as many as their send rates allow.
   */
  private async claimChunk(
    run: RunIdentity,
    lease: DeliveryLease,
    gate: ReturnType<CampaignDeliveryGates['open']>,
    end: RunEnd,
  ): Promise<{ ids: string[]; last: boolean } | undefined> {
    if (!lease.holds || this.shutdown.stopping) return undefined;
    const admitted = await gate.admit(DELIVERY_CHUNK);
    if (admitted === 0) {
      end.stopped = true;
      return undefined;
    }
    const claim = await this.ledger.claim(run, admitted);
    if (claim.takenOver > 0) {
      this.logger.warn(
        `campaign ${run.campaignId} batch ${run.batch}: took over ${claim.takenOver} claims of an expired run`,
      );
    }
    end.claimed += claim.ids.length;
    if (claim.ids.length === 0) return undefined;
    // Fewer than asked: the batch has nothing more to claim now; send these, then stop.
    return { ids: claim.ids, last: claim.ids.length < admitted };
  }

  /** The claimed recipients' rows, each with whether its address is suppressed right now. */
  private async subscribersById(accountId: AccountId, ids: string[]) {
    if (ids.length === 0) return new Map<string, RecipientRow>();
    const rows = await this.subscribers.findRows(accountId, ids);
    const suppressed = await this.suppressions.suppressedAmong(
      accountId,
      rows.map((row) => row.emailNormalized),
    );
    return new Map(
      rows.map((row) => [row.id, { ...row, suppressed: suppressed.has(row.emailNormalized) }]),
    );
  }

  /** Delivers to one recipient and resolves once the outcome is written (if there is one). */
  private async deliverOne(
    content: CampaignContent,
    lease: DeliveryLease,
    recorder: OutcomeRecorder,
    subscriberId: string,
    subscriber: RecipientRow | undefined,
  ): Promise<void> {
    const outcome = await this.outcomeOf(content, lease, recorder, subscriberId, subscriber);
    // Skips never held a connection: recorded like the rest, waited for here so the run ends
    // only when every outcome is written.
    if (outcome) await recorder.add(outcome);
  }

  /**
   * A skip, returned for the caller to record; undefined when a message went to SMTP or could
   * not be built (either recorded before its slot is freed) or when the
   * lease stopped holding before it could start or end: checked when a connection is free for
   * it and again before its end, so a frozen or cut-off worker leaves at most one message per
   * connection whose fate is unknown.
   * The row of a message that never started stays this run's claim, for the next run.
   */
  private async outcomeOf(
    content: CampaignContent,
    lease: DeliveryLease,
    recorder: OutcomeRecorder,
    subscriberId: string,
    subscriber: RecipientRow | undefined,
  ): Promise<Outcome | undefined> {
    // Checked at delivery time, not only at the snapshot: someone erased (their row is gone)
    // or who unsubscribed, bounced, complained or was suppressed since is skipped silently.
    if (!subscriber) return { subscriberId, kind: 'skipped', reason: 'erased' };
    const skip = skipReasonOf(subscriber.status, subscriber.suppressed);
    if (skip) {
      return { subscriberId, kind: 'skipped', reason: skip, logged: unsent(content, subscriber) };
    }
    // The message ends (the relay takes it) only once an unrecorded slot is free and the lease
    // still holds, and that slot is held until its outcome is committed: a worker that dies or
    // freezes can leave at most one message per connection sent but not recorded.
    await this.slots.send({
      lane: 'bulk',
      // A run whose outcomes cannot be written ends no more messages.
      holds: () => lease.holds && !recorder.failed,
      // Built once a connection is free for it, not when claimed: a run's window holds a
      // hundred recipients waiting for the connections, and their built messages would wait
      // with them, long enough to outlive the young generation and be promoted (a worker's
      // memory and its collector's work grew with the window, not with its connections).
      send: async (mayFinish) => {
        const built = await this.build(content, subscriberId, subscriber);
        if ('kind' in built) return built;
        return this.send(content.campaign.id, subscriberId, built, mayFinish);
      },
      record: async (outcome) => {
        if (outcome) await recorder.add(outcome);
      },
    });
    return undefined;
  }

  /** The recipient's message, or the failure to record when it cannot be built. */
  private async build(
    { campaign, compiled, footer, sender }: CampaignContent,
    subscriberId: string,
    subscriber: RecipientRow,
  ): Promise<OutgoingMessage | Outcome> {
    try {
      return await this.messages.build(campaign, compiled, subscriber, footer, sender);
    } catch (error) {
      // A message that cannot even be built (a merge value the template chokes on) will not
      // build on a retry either.
      const reason = failureReason(error);
      this.logger.error(`campaign ${campaign.id}: message for ${subscriberId} failed: ${reason}`);
      const logged = unsent({ campaign }, subscriber, reason);
      return { subscriberId, kind: 'failed', hardBounce: false, reason, logged };
    }
  }

  /**
   * One message through SMTP, and what became of it; undefined when it was abandoned before
   * its end (it never reached the relay: its row stays this run's claim).
   */
  private async send(
    campaignId: string,
    subscriberId: string,
    message: OutgoingMessage,
    mayFinish: MayFinish,
  ): Promise<Outcome | undefined> {
    // What the message log keeps of it, with the relay's reply.
    const logged = (reply: string): LoggedMessage => ({
      to: message.to,
      subject: message.subject,
      messageId: messageIdHeader(message.messageId, message.from),
      reply,
    });
    try {
      const receipt = await this.transport.sendWhen(message, mayFinish);
      if (!receipt) return undefined;
      return { subscriberId, kind: 'delivered', logged: logged(receipt.response) };
    } catch (error) {
      if (error instanceof MailDeliveryError) {
        const smtpCode = error.responseCode;
        return error.permanent
          ? {
              subscriberId,
              kind: 'failed',
              smtpCode,
              hardBounce: true,
              logged: logged(error.message),
            }
          : { subscriberId, kind: 'deferred', smtpCode, logged: logged(error.message) };
      }
      const reason = failureReason(error);
      this.logger.error(`campaign ${campaignId}: message for ${subscriberId} failed: ${reason}`);
      return { subscriberId, kind: 'failed', hardBounce: false, reason, logged: logged(reason) };
    }
  }

  /**
   * The messages of this chunk are out: losing their outcomes would send them again. The write
   * is retried until it lands, the wait doubling up to a few seconds, and meanwhile each
   * message keeps its unrecorded slot, so the worker ends no more messages than its bound
   * while it cannot record them. While PostgreSQL is away (or a lock conflict made this write
   * the victim) that is for as long as it takes. Any other failure (a trigger, a permission, a
   * bug) is given up only once the lease no longer holds: the rows may be another run's by
   * then, and these messages are among the unknown ones a lapsed run leaves. Giving up sooner
   * freed the slots and let every claimed message go out unrecorded, to be sent again later.
   */
  private recordUntilWritten(lease: DeliveryLease, outcomes: Outcome[]): Promise<void> {
    return retryTransient(() => this.outcomes.record(lease.run, outcomes), {
      attempts: RECORD_ATTEMPTS,
      maxWaitMs: RECORD_RETRY_MAX_MS,
      // While the run holds its lease, a write failing for any reason is tried again.
      keepTrying: (error, failures) => {
        if (!lease.leased) return false;
        if (failures === RECORD_ATTEMPTS) {
          this.logger.error(
            `campaign ${lease.run.campaignId} batch ${lease.run.batch}: outcomes cannot be recorded; ` +
              `no more messages end until they are: ${String(error)}`,
          );
        }
        return true;
      },
      onRetry: (error, waitMs) =>
        this.logger.warn(`recording outcomes failed, retrying in ${waitMs} ms: ${String(error)}`),
    }).then(() => this.guard.afterOutcomes(lease.run.accountId, lease.run.campaignId, outcomes));
  }
}

/** What the message log keeps of a message that never went out (skipped, or not built). */
function unsent(
  { campaign }: Pick<CampaignContent, 'campaign'>,
  subscriber: RecipientRow,
  reply?: string,
): LoggedMessage {
  return {
    to: subscriber.email,
    subject: null,
    messageId: messageIdHeader(`${campaign.id}.${subscriber.id}`, campaign.fromAddress),
    reply,
  };
}

/** Longest failure reason kept on a ledger row. */
const MAX_REASON_LENGTH = 500;

/**
 * The reason kept on the recipient's row (and logged) for a message that could not be built.
 * A render failure is the template engine's account of the template (its field and what went
 * wrong), not of the subscriber's data; addresses are cut out all the same, since the row
 * outlives an erasure of the person. Anything else is an error of ours: only its kind is kept.
 */
export function failureReason(error: unknown): string {
  const text =
    error instanceof TemplateRenderError
      ? error.message
      : `the message could not be built (${error instanceof Error ? error.name : 'unknown error'})`;
  return withoutAddresses(text).slice(0, MAX_REASON_LENGTH);
}
