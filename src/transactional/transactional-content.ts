import { Injectable } from '@nestjs/common';
import { Subscriber } from '../generated/prisma/client';
import type { AccountId } from '../platform/database/account-id';
import { InvalidRequestError, ValidationFailedError } from '../platform/errors/api-errors';
import {
  CompiledMessage,
  compileMessage,
  MessageContent,
  subscriberVariables,
} from '../templates/template-renderer';
import { TemplatesService } from '../templates/templates.service';
import { SendTransactionalDto } from './transactional.dto';

/** A send's content once its rules are checked: inline, or a compiled template. */
export type PreparedContent =
  | { kind: 'inline'; content: MessageContent }
  | {
      kind: 'template';
      templateId: string;
      compiled: CompiledMessage;
      data: Record<string, unknown>;
    };

/**
 * Turns a send request into the message to store. Inline content goes out as given (it is not
 * a template: a literal `{{` stays literal); a template is rendered with `data` over the
 * recipient's subscriber fields, so the worker only ever sends finished content.
 */
@Injectable()
export class TransactionalContent {
  constructor(private readonly templates: TemplatesService) {}

  async prepare(accountId: AccountId, body: SendTransactionalDto): Promise<PreparedContent> {
    const templateId = body.template_id ?? undefined;
    const html = body.html ?? null;
    const text = body.text ?? null;
    if (templateId === undefined) {
      if (body.data != null) {
        throw invalid('data', 'requires_template', 'data is only used with template_id.');
      }
      if (html === null && text === null) {
        throw new InvalidRequestError('Missing required field: html, text or template_id.');
      }
      return { kind: 'inline', content: { subject: body.subject!, html, text } };
    }
    if (html !== null || text !== null) {
      throw invalid('template_id', 'conflict', 'Give either template_id or html/text, not both.');
    }
    const template = await this.templates.findRow(accountId, templateId);
    if (!template) throw invalid('template_id', 'not_found', 'No such template.');
    const compiled = await compileMessage({
      subject: body.subject ?? template.subject,
      html: template.html,
      text: template.text,
    });
    return { kind: 'template', templateId, compiled, data: body.data ?? {} };
  }

  async render(
    prepared: PreparedContent,
    to: string,
    recipient: Subscriber | null,
  ): Promise<MessageContent> {
    if (prepared.kind === 'inline') return prepared.content;
    const fields = recipient ? subscriberVariables(recipient) : { email: to };
    return prepared.compiled.render({ ...fields, ...prepared.data });
  }
}

function invalid(field: string, code: string, message: string) {
  return new ValidationFailedError([{ field, code, message }]);
}
