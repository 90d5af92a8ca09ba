import { Injectable } from '@nestjs/common';
import { Template } from '../generated/prisma/client';
import { AuditLog } from '../audit/audit-log';
import { Principal } from '../auth/principal';
import { isUuid, newId } from '../platform/crypto/ids';
import type { AccountId } from '../platform/database/account-id';
import {
  ConflictError,
  InsufficientScopeError,
  NotFoundError,
  ValidationFailedError,
} from '../platform/errors/api-errors';
import { ListQuery, Page } from '../platform/pagination/page-request';
import { Paginator } from '../platform/pagination/paginator';
import { SubscribersService } from '../subscribers/subscribers.service';
import {
  CreateTemplateDto,
  PreviewTemplateDto,
  RenderedTemplateResponse,
  UpdateTemplateDto,
} from './template.dto';
import { RenderDraftDto } from './render-draft.dto';
import { presentTemplate, TemplateResponse } from './template.presenter';
import { compileMessage, MessageContent, subscriberVariables } from './template-renderer';
import { TemplatesRepository } from './templates.repository';

@Injectable()
export class TemplatesService {
  constructor(
    private readonly templates: TemplatesRepository,
    private readonly subscribers: SubscribersService,
    private readonly paginator: Paginator,
    private readonly audit: AuditLog,
  ) {}

  list(caller: Principal, query: ListQuery): Promise<Page<TemplateResponse>> {
    return this.paginator.list(caller.accountId, query, this.templates, presentTemplate);
  }

  async get(caller: Principal, id: string): Promise<TemplateResponse> {
    return presentTemplate(await this.find(caller.accountId, id));
  }

  async create(caller: Principal, body: CreateTemplateDto): Promise<TemplateResponse> {
    const content = await checkedContent({
      subject: body.subject,
      html: body.html ?? null,
      text: body.text ?? null,
    });
    const row = await this.templates.create(caller.accountId, newId(), {
      name: body.name,
      ...content,
    });
    await this.audit.recordBy(caller, {
      action: 'template.created',
      metadata: { template_id: row.id },
    });
    return presentTemplate(row);
  }

  async update(caller: Principal, id: string, body: UpdateTemplateDto): Promise<TemplateResponse> {
    // The fields sent are compiled before the row is locked: that may take a worker seconds.
    await compileMessage({
      subject: body.subject ?? '',
      html: body.html || null,
      text: body.text || null,
    });
    const row = isUuid(id)
      ? await this.templates.update(caller.accountId, id, (current) => ({
          name: body.name,
          ...withBody({
            subject: body.subject ?? current.subject,
            html: body.html === undefined ? current.html : body.html,
            text: body.text === undefined ? current.text : body.text,
          }),
        }))
      : null;
    if (!row) throw new NotFoundError('template');
    return presentTemplate(row);
  }

  async delete(caller: Principal, id: string): Promise<void> {
    const outcome = isUuid(id) ? await this.templates.delete(caller.accountId, id) : 'not_found';
    if (outcome === 'not_found') throw new NotFoundError('template');
    if (outcome === 'in_use') {
      throw new ConflictError('A campaign that has not been sent yet uses this template.');
    }
    await this.audit.recordBy(caller, {
      action: 'template.deleted',
      metadata: { template_id: id },
    });
  }

  /** Renders with sample data, a real subscriber, or both (the sample data wins). */
  async preview(
    caller: Principal,
    id: string,
    body: PreviewTemplateDto,
  ): Promise<RenderedTemplateResponse> {
    const template = await this.find(caller.accountId, id);
    // A preview with a subscriber shows that person's data: a key must be allowed to read it.
    if (body.subscriber_id && !caller.scopes.includes('subscribers:read')) {
      throw new InsufficientScopeError('subscribers:read');
    }
    const variables = body.subscriber_id
      ? subscriberVariables(await this.subscriber(caller.accountId, body.subscriber_id))
      : {};
    return (await compileMessage(template)).render({ ...variables, ...body.data });
  }

  /**
   * Renders content that is not saved (the dashboard's editor, as it types) with the same
   * renderer campaigns use, so the preview is what subscribers will get.
   */
  async renderDraft(caller: Principal, body: RenderDraftDto): Promise<RenderedTemplateResponse> {
    const variables = body.subscriber_id
      ? subscriberVariables(await this.subscriber(caller.accountId, body.subscriber_id))
      : {};
    const message = await compileMessage({
      subject: body.subject,
      html: body.html || null,
      text: body.text || null,
    });
    return message.render({ ...variables, ...body.data });
  }

  /**
   * A template's row for another module (a campaign or a transactional send checking and
   * rendering it); null when this account has no such template.
   */
  findRow(accountId: AccountId, id: string): Promise<Template | null> {
    return isUuid(id) ? this.templates.findById(accountId, id) : Promise.resolve(null);
  }

  private async find(accountId: AccountId, id: string): Promise<Template> {
    const row = isUuid(id) ? await this.templates.findById(accountId, id) : null;
    if (!row) throw new NotFoundError('template');
    return row;
  }

  /** A missing subscriber is a bad field of the request, not a missing template: 422. */
  private async subscriber(accountId: AccountId, id: string) {
    const row = await this.subscribers.findRow(accountId, id);
    if (row) return row;
    throw new ValidationFailedError([
      { field: 'subscriber_id', code: 'not_found', message: 'No such subscriber in this account.' },
    ]);
  }
}

/**
 * Empty bodies count as absent; at least one body must remain, and every field must
 * compile (422 with one `invalid_template` detail per field that does not).
 */
async function checkedContent(content: MessageContent): Promise<MessageContent> {
  const checked = withBody(content);
  await compileMessage(checked);
  return checked;
}

/** Empty bodies count as absent; at least one body must remain (422 otherwise). */
function withBody(content: MessageContent): MessageContent {
  const html = content.html === '' ? null : content.html;
  const text = content.text === '' ? null : content.text;
  if (html === null && text === null) {
    const message = 'A template needs html, text or both.';
    throw new ValidationFailedError([
      { field: 'html', code: 'html_or_text_required', message },
      { field: 'text', code: 'html_or_text_required', message },
    ]);
  }
  return { subject: content.subject, html, text };
}
