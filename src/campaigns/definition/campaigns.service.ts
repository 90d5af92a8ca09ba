import { Inject, Injectable, Logger } from '@nestjs/common';
import { Campaign } from '../../generated/prisma/client';
import { AuditLog } from '../../audit/audit-log';
import { Principal } from '../../auth/principal';
import { SenderDomainsService } from '../../domains/sender-domains.service';
import { HeraldConfig } from '../../platform/config/config';
import { CONFIG } from '../../platform/config/config.module';
import { isUuid, newId } from '../../platform/crypto/ids';
import type { AccountId } from '../../platform/database/account-id';
import {
  ErrorDetail,
  NotFoundError,
  ValidationFailedError,
} from '../../platform/errors/api-errors';
import { ListQuery, Page } from '../../platform/pagination/page-request';
import { Paginator } from '../../platform/pagination/paginator';
import { SegmentsService } from '../../segments/segments.service';
import { compileMessage } from '../../templates/template-renderer';
import { CampaignAlreadySentError, CampaignNotDraftError } from '../core/campaign-errors';
import { TemplatesService } from '../../templates/templates.service';
import { CreateCampaignDto, UpdateCampaignDto } from './campaign.dto';
import {
  CampaignResponse,
  CampaignStatsResponse,
  presentCampaign,
  presentCampaignStats,
  SendAcceptedResponse,
} from './campaign.presenter';
import { StatsService } from '../../stats/stats.service';
import { CampaignEvents } from '../core/campaign-events';
import { CampaignSendQueue } from '../core/campaign-send-queue';
import { CampaignDeliveryRunsRepository } from '../ledger/campaign-delivery-runs.repository';
import { CampaignColumns, CampaignsRepository } from '../core/campaigns.repository';
import { withinDeadline } from '../../platform/queue/within-deadline';
import { ENQUEUE_DEADLINE_MS } from '../../platform/settings';

@Injectable()
export class CampaignsService {
  private readonly logger = new Logger(CampaignsService.name);

  constructor(
    private readonly campaigns: CampaignsRepository,
    private readonly runs: CampaignDeliveryRunsRepository,
    private readonly templates: TemplatesService,
    private readonly segments: SegmentsService,
    private readonly queue: CampaignSendQueue,
    private readonly paginator: Paginator,
    private readonly senderDomains: SenderDomainsService,
    private readonly audit: AuditLog,
    @Inject(CONFIG) private readonly config: HeraldConfig,
    private readonly events: CampaignEvents,
    private readonly statistics: StatsService,
  ) {}

  list(caller: Principal, query: ListQuery): Promise<Page<CampaignResponse>> {
    return this.paginator.page(
      caller.accountId,
      this.campaigns.listName,
      query,
      async (page) =>
        this.withCurrentCounters(
          caller.accountId,
          await this.campaigns.listPage(caller.accountId, page),
        ),
      (row) => this.present(row),
    );
  }

  async get(caller: Principal, id: string): Promise<CampaignResponse> {
    return this.present(await this.find(caller.accountId, id));
  }

  /** The campaign as clients see it; its expected finish counts the account's send rate. */
  present(row: Campaign): CampaignResponse {
    return presentCampaign(row, this.config.sendRatePerMinute);
  }

  /** The campaign's row, for the other campaign services; 404 when there is none. */
  findRow(accountId: AccountId, id: string): Promise<Campaign> {
    return this.find(accountId, id);
  }

  /** What a send checks before it starts (422 otherwise): see validate. */
  assertSendable(accountId: AccountId, campaign: Campaign): Promise<void> {
    return this.validate(accountId, columnsOf(campaign));
  }

  async create(caller: Principal, body: CreateCampaignDto): Promise<CampaignResponse> {
    const columns: CampaignColumns = {
      name: body.name,
      subject: body.subject,
      fromAddress: body.from,
      templateId: body.template_id ?? null,
      segmentId: body.segment_id ?? null,
      html: body.html ?? null,
      text: body.text ?? null,
      ratePerMinute: body.rate_per_minute ?? null,
    };
    await this.validate(caller.accountId, columns);
    const created = await this.campaigns.create(caller.accountId, newId(), columns);
    await this.audit.recordBy(caller, {
      action: 'campaign.created',
      metadata: { campaign_id: created.id },
    });
    return this.present(created);
  }

  async update(caller: Principal, id: string, body: UpdateCampaignDto): Promise<CampaignResponse> {
    const current = await this.find(caller.accountId, id);
    if (!isEditable(current)) throw new CampaignNotDraftError();
    const changes: Partial<CampaignColumns> = {};
    if (body.name !== undefined) changes.name = body.name;
    if (body.subject !== undefined) changes.subject = body.subject;
    if (body.from !== undefined) changes.fromAddress = body.from;
    if (body.template_id !== undefined) changes.templateId = body.template_id;
    if (body.segment_id !== undefined) changes.segmentId = body.segment_id;
    if (body.html !== undefined) changes.html = body.html;
    if (body.text !== undefined) changes.text = body.text;
    if (body.rate_per_minute !== undefined) changes.ratePerMinute = body.rate_per_minute;
    // Choosing a template replaces inline content, and inline content replaces a template,
    // so a client can switch between the two with one PATCH.
    if (changes.templateId && body.html === undefined && body.text === undefined) {
      changes.html = null;
      changes.text = null;
    }
    if ((changes.html || changes.text) && body.template_id === undefined) {
      changes.templateId = null;
    }
    await this.validate(caller.accountId, { ...columnsOf(current), ...changes });
    const updated = await this.campaigns.updateUnsent(caller.accountId, id, changes);
    if (!updated) throw new CampaignNotDraftError();
    return this.present(updated);
  }

  async delete(caller: Principal, id: string): Promise<void> {
    const current = await this.find(caller.accountId, id);
    if (current.status !== 'draft') throw new CampaignNotDraftError();
    if (!(await this.campaigns.deleteDraft(caller.accountId, id))) {
      throw new CampaignNotDraftError();
    }
    await this.audit.recordBy(caller, {
      action: 'campaign.deleted',
      metadata: { campaign_id: id },
    });
  }

  /**
   * Starts the send (of a draft, or of a scheduled campaign at once). The conditional UPDATE
   * in startSending lets exactly one of any number of concurrent calls through; everyone else
   * gets 409. The fan-out job is enqueued after the
   * commit; if that enqueue fails the send is still accepted (PostgreSQL holds it) and the
   * workers' watchdog starts it.
   */
  async send(caller: Principal, id: string): Promise<SendAcceptedResponse> {
    const { accountId } = caller;
    const current = await this.find(accountId, id);
    if (!isEditable(current)) throw new CampaignAlreadySentError();
    await this.validate(accountId, columnsOf(current));
    if (!(await this.campaigns.startSending(accountId, id))) {
      await this.find(accountId, id); // deleted meanwhile → 404
      throw new CampaignAlreadySentError();
    }
    await this.audit.recordBy(caller, { action: 'campaign.sent', metadata: { campaign_id: id } });
    await this.events.statusChanged(accountId, id, 'campaign.sending');
    try {
      await withinDeadline(
        this.queue.enqueueFanout(accountId, id),
        ENQUEUE_DEADLINE_MS,
        `campaign ${id}'s fan-out job`,
      );
    } catch (error) {
      this.logger.error(
        `campaign ${id}: enqueue failed, the watchdog will start it: ${String(error)}`,
      );
    }
    return { id, status: 'sending' };
  }

  async stats(caller: Principal, id: string): Promise<CampaignStatsResponse> {
    const campaign = await this.findWithoutCounters(caller.accountId, id);
    // Counters and the unfinished recipients read in one snapshot: they always add up.
    const current = (await this.runs.current(caller.accountId, [id], true)).get(id);
    const engagement = await this.statistics.campaignEngagement(caller.accountId, id);
    return presentCampaignStats(
      { ...campaign, ...current?.counters },
      { outstanding: current?.outstanding ?? 0, deferred: current?.deferred ?? 0 },
      engagement,
    );
  }

  /** A campaign's row with its counters as they stand (for views the API does not have). */
  row(caller: Principal, id: string): Promise<Campaign> {
    return this.find(caller.accountId, id);
  }

  /** The `count` campaigns that started sending most recently, counters as they stand. */
  async recentlyStarted(caller: Principal, count: number): Promise<Campaign[]> {
    const rows = await this.campaigns.recentlyStarted(caller.accountId, count);
    return this.withCurrentCounters(caller.accountId, rows);
  }

  private async find(accountId: AccountId, id: string): Promise<Campaign> {
    const [campaign] = await this.withCurrentCounters(accountId, [
      await this.findWithoutCounters(accountId, id),
    ]);
    return campaign;
  }

  private async findWithoutCounters(accountId: AccountId, id: string): Promise<Campaign> {
    // The hidden campaigns behind automation send steps answer 404 like any unknown id.
    const campaign = isUuid(id) ? await this.campaigns.findVisible(accountId, id) : null;
    if (!campaign) throw new NotFoundError('campaign');
    return campaign;
  }

  /**
   * Rows with their send counters as they stand: delivery runs count their outcomes apart
   * until they end (so outcome writes never wait on the campaign row), and those counts belong
   * in what clients see.
   */
  private async withCurrentCounters(accountId: AccountId, rows: Campaign[]): Promise<Campaign[]> {
    const sent = rows.filter((row) => row.startedAt !== null).map((row) => row.id);
    const current = await this.runs.current(accountId, sent);
    return rows.map((row) => ({ ...row, ...current.get(row.id)?.counters }));
  }

  /**
   * A campaign needs content from exactly one source (a template, or html and/or text),
   * ids that exist in this account, merge fields that compile, and a From on a verified
   * sender domain of the account.
   */
  private async validate(accountId: AccountId, columns: CampaignColumns): Promise<void> {
    const details: ErrorDetail[] = [];
    const inline = columns.html != null || columns.text != null;
    let content: { html: string | null; text: string | null } | undefined;
    if (columns.templateId && inline) {
      details.push({
        field: 'template_id',
        code: 'conflict',
        message: 'Give either template_id or html/text, not both.',
      });
    } else if (columns.templateId) {
      const template = await this.templates.findRow(accountId, columns.templateId);
      if (template) content = { html: template.html, text: template.text };
      else details.push({ field: 'template_id', code: 'not_found', message: 'No such template.' });
    } else if (inline) {
      content = { html: columns.html ?? null, text: columns.text ?? null };
    } else {
      details.push({
        field: 'template_id',
        code: 'required',
        message: 'A campaign needs a template_id, or html and/or text.',
      });
    }
    if (columns.segmentId && !(await this.segments.exists(accountId, columns.segmentId))) {
      details.push({ field: 'segment_id', code: 'not_found', message: 'No such segment.' });
    }
    if (content) {
      try {
        await compileMessage({ subject: columns.subject, ...content });
      } catch (error) {
        if (!(error instanceof ValidationFailedError)) throw error;
        details.push(...error.details);
      }
    }
    await this.senderDomains.assertCanSendFrom(accountId, columns.fromAddress).catch((error) => {
      if (!(error instanceof ValidationFailedError)) throw error;
      details.push(...error.details);
    });
    if (details.length > 0) throw new ValidationFailedError(details);
  }
}

/** Drafts and scheduled campaigns: nothing has been sent, so everything may still change. */
function isEditable(campaign: Campaign): boolean {
  return campaign.status === 'draft' || campaign.status === 'scheduled';
}

function columnsOf(campaign: Campaign): CampaignColumns {
  return {
    name: campaign.name,
    subject: campaign.subject,
    fromAddress: campaign.fromAddress,
    templateId: campaign.templateId,
    segmentId: campaign.segmentId,
    html: campaign.html,
    text: campaign.text,
    ratePerMinute: campaign.ratePerMinute,
  };
}
