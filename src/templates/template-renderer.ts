import { Subscriber } from '../generated/prisma/client';
import { ErrorDetail, ValidationFailedError } from '../platform/errors/api-errors';
import { presentSubscriber } from '../subscribers/subscriber.presenter';
import { compileSource, RenderFn } from './handlebars-source';

export interface MessageContent {
  subject: string;
  html: string | null;
  text: string | null;
}

export interface CompiledMessage {
  render(variables: Record<string, unknown>): MessageContent;
}

/**
 * Compiles once (per campaign); throws ValidationFailedError (422, one detail per bad field)
 * on syntax errors. Rendering escapes HTML in `html` only: text and subject are not HTML.
 */
export function compileMessage(content: MessageContent): CompiledMessage {
  const errors: ErrorDetail[] = [];
  const compile = (field: keyof MessageContent, source: string, escapeHtml: boolean) => {
    try {
      return compileSource(source, escapeHtml);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      errors.push({ field, code: 'invalid_template', message });
      return undefined;
    }
  };
  const subject = compile('subject', content.subject, false);
  const html = content.html === null ? null : compile('html', content.html, true);
  const text = content.text === null ? null : compile('text', content.text, false);
  if (errors.length > 0 || !subject || html === undefined || text === undefined) {
    throw new ValidationFailedError(errors);
  }
  return new HandlebarsMessage(subject, html, text);
}

class HandlebarsMessage implements CompiledMessage {
  constructor(
    private readonly subject: RenderFn,
    private readonly html: RenderFn | null,
    private readonly text: RenderFn | null,
  ) {}

  render(variables: Record<string, unknown>): MessageContent {
    return {
      // A subject is one header line: a merged value must not be able to add headers.
      subject: this.subject(variables).replace(/[\r\n]+/g, ' '),
      html: this.html ? this.html(variables) : null,
      text: this.text ? this.text(variables) : null,
    };
  }
}

/**
 * The merge variables of a subscriber row (the Prisma `Subscriber` type): its API fields in
 * snake_case (email, first_name, last_name, …, tags, interests) plus every custom_fields key
 * at top level (API fields win on a clash) and `custom_fields` itself.
 */
export function subscriberVariables(subscriber: Subscriber): Record<string, unknown> {
  const fields = presentSubscriber(subscriber);
  const custom = isPlainObject(subscriber.customFields) ? subscriber.customFields : {};
  // Spreads define own properties, so a custom key named `__proto__` stays a plain key.
  return { ...custom, ...fields };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
