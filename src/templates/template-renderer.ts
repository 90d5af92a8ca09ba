import { createHash } from 'node:crypto';
import { Subscriber } from '../generated/prisma/client';
import { ErrorDetail, ValidationFailedError } from '../platform/errors/api-errors';
import { presentSubscriber } from '../subscribers/subscriber.presenter';
import { FieldsRendered, renderFields } from './field-render';
import { compileSmall, compileSource, RenderFn } from './handlebars-source';
import { TemplateWorkerError, TemplateWorkerPool } from './template-pool';
import { FieldRef, WorkerReply } from './template-worker-protocol';

export interface MessageContent {
  subject: string;
  html: string | null;
  text: string | null;
}

export interface CompiledMessage {
  /** Throws TemplateRenderError (a 422) when the template fails on these variables. */
  render(variables: Record<string, unknown>): Promise<MessageContent>;
  /**
   * The same render on the calling thread, with the same result and the same errors; present
   * only when every field is straight-line (no `#each`, no block over a variable) and small
   * (INLINE_SOURCE_CHARS, INLINE_EXPRESSIONS). Such a render takes each part of the template
   * at most once, so its time and output are bounded by the template and the values merged,
   * and it needs none of the worker's time and memory limits; it saves the hop to the thread
   * and the copy of the variables. The first call compiles the fields here (milliseconds):
   * for callers that answer no requests, such as campaign delivery.
   */
  readonly renderHere?: (variables: Record<string, unknown>) => MessageContent;
}

/** Merge fields (`{{…}}`) in one field: compiling costs time and memory per expression. */
export const MAX_EXPRESSIONS = 5000;
/** Compiling one field: past this it is refused as too complex (seconds of a worker). */
const COMPILE_TIMEOUT_MS = 10_000;
/**
 * Rendering one message: a loop over too much data is stopped here. Well inside the
 * 5 s a database transaction may last, since a transactional send renders inside one.
 */
const RENDER_TIMEOUT_MS = 2000;
/** Converting an HTML part to text (at most 512 KiB of it). */
const TEXT_TIMEOUT_MS = 10_000;
/**
 * A field this long at most compiles on the calling thread (when its blocks nest at most ten
 * deep: compileSmall), and, when straight-line, renders there too (renderHere). Compiling
 * such a field takes milliseconds, once per process; no template thread has to start for it.
 */
const INLINE_SOURCE_CHARS = 64 * 1024;
/**
 * Merge fields of such a field: with a subscriber's values (custom fields are at most 16 KiB)
 * its output stays within a few MiB.
 */
const INLINE_EXPRESSIONS = 200;

type FieldName = keyof MessageContent;
const FIELDS: FieldName[] = ['subject', 'html', 'text'];

/** A template that compiled but failed on the data given to it (422 at preview). */
export class TemplateRenderError extends ValidationFailedError {
  constructor(
    readonly field: FieldName,
    readonly reason: string,
  ) {
    const message = `${field} could not be rendered: ${reason}`;
    super([{ field, code: 'render_failed', message }]);
    // Said in full: at send time this message is the reason logged for the failed message.
    this.message = message;
  }
}

/**
 * A message whose template does not compile (any more): every render fails with the
 * compiler's reason, so a send fails each message with it instead of failing as a whole.
 */
export function unrenderable(error: ValidationFailedError): CompiledMessage {
  const [first] = error.details;
  const reason = error.details.map((detail) => detail.message).join('; ');
  const failure = new TemplateRenderError((first?.field ?? 'html') as FieldName, reason);
  return { render: () => Promise.reject(failure) };
}

let pool: TemplateWorkerPool | undefined;
const workers = () => (pool ??= new TemplateWorkerPool());
/**
 * Messages (by affinity) whose fields compiled on their worker, and whether all of them may
 * render on the calling thread: compiling the same message again (each delivery job, each
 * preview) asks no worker. Should the worker have lost them since, a render finds out and
 * compiles them again.
 */
const compiledMessages = new Map<string, { inline: boolean }>();
const COMPILED_MESSAGES = 10_000;

/**
 * Checks that every field compiles, on a worker thread (Handlebars takes seconds on large
 * templates); throws ValidationFailedError (422, one detail per bad field, with its line and
 * column) on syntax errors, and `too_complex` past MAX_EXPRESSIONS or the time and memory a
 * compile may take. Rendering (also on a worker) escapes HTML in `html` only: text and
 * subject are not HTML.
 */
export async function compileMessage(content: MessageContent): Promise<CompiledMessage> {
  const fields = FIELDS.map((name) => {
    const source = content[name];
    return source === null ? null : { name, ...fieldRef(source, name === 'html') };
  });
  // The fields of one message go to one worker, which renders it later with all of them.
  const affinity = fields.map((field) => field?.key ?? '').join('.');
  let known = compiledMessages.get(affinity);
  if (!known && fields.every((field) => !field || isSmall(field.source))) {
    // Compiled right here when that is quick and the result straight-line; anything else
    // (an error to word, a loop, deep nesting) is the worker's, as for large fields.
    const renders = fields.map((field) => field && compileSmall(field.source, field.escapeHtml));
    if (renders.every((render) => render !== undefined)) {
      fields.forEach((field, index) => field && keepInline(field, renders[index]!));
      known = { inline: true };
      rememberCompiled(affinity, known);
    }
  }
  if (!known) {
    const { details, loops } = await compileFields(fields, affinity);
    if (details.length > 0) throw new ValidationFailedError(details);
    known = { inline: !loops && fields.every((field) => !field || isSmall(field.source)) };
    rememberCompiled(affinity, known);
  }
  return new WorkerMessage(fields, affinity, known.inline);
}

function rememberCompiled(affinity: string, known: { inline: boolean }): void {
  if (compiledMessages.size >= COMPILED_MESSAGES) compiledMessages.clear();
  compiledMessages.set(affinity, known);
}

function isSmall(source: string): boolean {
  return source.length <= INLINE_SOURCE_CHARS && countExpressions(source) <= INLINE_EXPRESSIONS;
}

type Field = Required<FieldRef> & { name: FieldName };

/**
 * Compiles each field on the message's worker: one detail per field that fails, and whether
 * any may render part of itself repeatedly.
 */
async function compileFields(
  fields: (Field | null)[],
  affinity: string,
): Promise<{ details: ErrorDetail[]; loops: boolean }> {
  const results = await Promise.all(
    fields.map((field) => (field ? compileField(field, affinity) : Promise.resolve(null))),
  );
  const details = results.flatMap((result) => (result?.problem ? [result.problem] : []));
  return { details, loops: results.some((result) => result?.loops ?? false) };
}

/**
 * The text part of an HTML-only message, converted on a template worker (see
 * convertHtmlToText). Null when the conversion fails or takes too long: the message then
 * goes without one rather than not at all.
 */
export async function textFromHtml(html: string): Promise<string | null> {
  const affinity = createHash('sha256').update(html).digest('base64url');
  const known = texts.get(affinity);
  if (known !== undefined) return known;
  try {
    const reply = await workers().run({ kind: 'text', html }, TEXT_TIMEOUT_MS, affinity);
    const text = reply.ok ? reply.outputs[0] : null;
    if (text !== null) keepText(affinity, text);
    return text;
  } catch (error) {
    if (error instanceof TemplateWorkerError) return null;
    throw error;
  }
}

/**
 * Text parts made from HTML, by the HTML's hash: every delivery job of an HTML-only campaign
 * asks for the same one. Oldest out past 4 M characters.
 */
const texts = new Map<string, string>();
let textChars = 0;
const TEXT_CACHE_CHARS = 4 * 1024 * 1024;

function keepText(affinity: string, text: string): void {
  if (texts.has(affinity)) return;
  texts.set(affinity, text);
  textChars += text.length;
  for (const [key, kept] of texts) {
    if (textChars <= TEXT_CACHE_CHARS || key === affinity) break;
    texts.delete(key);
    textChars -= kept.length;
  }
}

/** Shuts the template workers down (they restart on the next use). */
export async function closeTemplateWorkers(): Promise<void> {
  const current = pool;
  pool = undefined;
  await current?.close();
}

function fieldRef(source: string, escapeHtml: boolean): Required<FieldRef> {
  const key = createHash('sha256')
    .update(escapeHtml ? 'html\0' : 'text\0')
    .update(source)
    .digest('base64url');
  return { key, escapeHtml, source };
}

async function compileField(
  field: Field,
  affinity: string,
): Promise<{ problem: ErrorDetail | null; loops: boolean }> {
  const fail = (code: string, message: string) => ({
    problem: { field: field.name, code, message } as ErrorDetail,
    loops: true,
  });
  if (countExpressions(field.source) > MAX_EXPRESSIONS) {
    return fail('too_complex', `${field.name} has more than ${MAX_EXPRESSIONS} merge fields.`);
  }
  let reply: WorkerReply;
  try {
    const ref = { key: field.key, escapeHtml: field.escapeHtml, source: field.source };
    reply = await workers().run({ kind: 'compile', field: ref }, COMPILE_TIMEOUT_MS, affinity);
  } catch (error) {
    if (!(error instanceof TemplateWorkerError)) throw error;
    return fail('too_complex', `${field.name} is too complex to compile.`);
  }
  // A worker that does not say is taken to loop: the message then renders on workers only.
  if (reply.ok) return { problem: null, loops: reply.loops ?? true };
  if (reply.missing) return fail('invalid_template', 'not compiled');
  const { line, column } = reply;
  // Where, as numbers too: an editor can put the cursor there.
  const at = line !== undefined && column !== undefined ? { line, column } : {};
  const failed = fail('invalid_template', reply.error);
  return { ...failed, problem: { ...failed.problem, ...at } };
}

/** `{{` occurrences, counted with indexOf: linear, and an upper bound on expressions. */
function countExpressions(source: string): number {
  let count = 0;
  for (let at = source.indexOf('{{'); at >= 0; at = source.indexOf('{{', at + 2)) count++;
  return count;
}

class WorkerMessage implements CompiledMessage {
  readonly renderHere?: (variables: Record<string, unknown>) => MessageContent;

  constructor(
    private readonly fields: (Field | null)[],
    private readonly affinity: string,
    inline: boolean,
  ) {
    if (inline) this.renderHere = (variables) => this.renderInline(variables);
  }

  private renderInline(variables: Record<string, unknown>): MessageContent {
    const renders = this.fields.map((field) => field && inlineRender(field));
    return this.contentOf(renderFields(renders, variables));
  }

  async render(variables: Record<string, unknown>): Promise<MessageContent> {
    // By key: the worker keeps the fields compiled. One that lost them (restarted after a
    // task that failed, or short of room) compiles them again first, within its own time.
    const byKey = this.fields.map(
      (field) => field && { key: field.key, escapeHtml: field.escapeHtml },
    );
    let reply = await this.run(byKey, variables);
    if (!reply.ok && reply.missing) {
      const [problem] = (await compileFields(this.fields, this.affinity)).details;
      if (problem) throw new TemplateRenderError(problem.field as FieldName, problem.message);
      reply = await this.run(byKey, variables);
    }
    if (!reply.ok && reply.missing) throw new TemplateRenderError('subject', 'not compiled');
    return this.contentOf(reply);
  }

  private contentOf(rendered: FieldsRendered): MessageContent {
    if (!rendered.ok) throw new TemplateRenderError(FIELDS[rendered.field || 0], rendered.error);
    const [subject, html, text] = rendered.outputs;
    return {
      // A subject is one header line: a merged value must not be able to add headers.
      subject: (subject ?? '').replace(/[\r\n]+/g, ' '),
      html,
      text,
    };
  }

  private async run(fields: (FieldRef | null)[], variables: Record<string, unknown>) {
    try {
      const task = { kind: 'render' as const, fields, variables };
      return await workers().run(task, RENDER_TIMEOUT_MS, this.affinity);
    } catch (error) {
      if (!(error instanceof TemplateWorkerError)) throw error;
      const field = this.fields.find((ref) => ref && ref.name !== 'subject')?.name ?? 'subject';
      const reason =
        error.reason === 'timeout'
          ? `rendering took longer than ${RENDER_TIMEOUT_MS / 1000} s (a loop over too much data?)`
          : 'rendering needed more memory than a message may take';
      throw new TemplateRenderError(field, reason);
    }
  }
}

/**
 * Fields compiled on this thread for renderHere, least recently used out past 1 M source
 * characters: only small straight-line fields, which compiled here quickly (compileSmall) or
 * on a worker first, so compiling one again after it fell out cannot fail or take long.
 */
const inlineRenders = new Map<string, { render: RenderFn; chars: number }>();
let inlineChars = 0;
const INLINE_CACHE_CHARS = 1024 * 1024;

function inlineRender(field: Field): RenderFn {
  const hit = inlineRenders.get(field.key);
  return keepInline(field, hit?.render ?? compileSource(field.source, field.escapeHtml).render);
}

function keepInline(field: Field, render: RenderFn): RenderFn {
  const previous = inlineRenders.get(field.key);
  if (previous) {
    inlineRenders.delete(field.key);
    inlineChars -= previous.chars;
  }
  inlineRenders.set(field.key, { render, chars: field.source.length });
  inlineChars += field.source.length;
  for (const [key, entry] of inlineRenders) {
    if (inlineChars <= INLINE_CACHE_CHARS || key === field.key) break;
    inlineRenders.delete(key);
    inlineChars -= entry.chars;
  }
  return render;
}

/**
 * The merge variables of a subscriber row (the Prisma `Subscriber` type): its API fields in
 * snake_case (email, first_name, last_name, …, tags, interests) plus every custom_fields key
 * at top level (API fields win on a clash) and `custom_fields` itself.
 */
export function subscriberVariables(subscriber: Subscriber): Record<string, unknown> {
  // The presented row is ours to extend. Custom keys are added to it, rather than both spread
  // into a new object: that spread built the object's shape anew, property by property, for
  // every message (a tenth of a campaign worker's allocations, 25 µs a subscriber).
  const variables = presentSubscriber(subscriber) as unknown as Record<string, unknown>;
  const custom = isPlainObject(subscriber.customFields) ? subscriber.customFields : {};
  for (const key of Object.keys(custom)) {
    if (Object.hasOwn(variables, key)) continue; // an API field wins
    if (key === '__proto__') {
      // Assigned, it would set the prototype: defined, it stays a plain key.
      Object.defineProperty(variables, key, {
        value: custom[key],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else {
      variables[key] = custom[key];
    }
  }
  return variables;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
