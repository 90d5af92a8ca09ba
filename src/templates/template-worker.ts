import { parentPort } from 'node:worker_threads';
import { convertHtmlToText } from '../platform/mail/text-part';
import { compileSource, RenderFn } from './handlebars-source';
import { TemplateSyntaxError } from './template-syntax-error';
import { FieldRef, WorkerReply, WorkerRequest } from './template-worker-protocol';

/**
 * The inside of a template worker thread: compiles fields, renders messages and converts
 * HTML to a text part, so that none of it ever runs on a thread that answers requests. The pool (template-pool.ts) bounds
 * each task's time and the thread's memory; here, the compiled fields are kept, least
 * recently used first out, and a rendered field larger than RENDERED_LIMIT is an error.
 */
const RENDERED_LIMIT = 4 * 1024 * 1024;
/** Source characters kept compiled (a compiled field weighs many times its source). */
const CACHE_CHARS = 4 * 1024 * 1024;

const compiled = new Map<string, { render: RenderFn; chars: number }>();
let cachedChars = 0;

function compiledField(field: FieldRef): RenderFn | undefined {
  const hit = compiled.get(field.key);
  if (hit) {
    compiled.delete(field.key);
    compiled.set(field.key, hit);
    return hit.render;
  }
  if (field.source === undefined) return undefined;
  const render = compileSource(field.source, field.escapeHtml);
  compiled.set(field.key, { render, chars: field.source.length });
  cachedChars += field.source.length;
  for (const [key, entry] of compiled) {
    if (cachedChars <= CACHE_CHARS || key === field.key) break;
    compiled.delete(key);
    cachedChars -= entry.chars;
  }
  return render;
}

function handle(request: WorkerRequest): WorkerReply {
  const { id } = request;
  if (request.kind === 'text') {
    try {
      return { id, ok: true, outputs: [convertHtmlToText(request.html)] };
    } catch (error) {
      return { id, ok: false, error: messageOf(error) };
    }
  }
  if (request.kind === 'compile') {
    try {
      compiledField(request.field);
      return { id, ok: true, outputs: [] };
    } catch (error) {
      const position = error instanceof TemplateSyntaxError ? error.position : undefined;
      return { id, ok: false, error: messageOf(error), ...position };
    }
  }
  const renders = request.fields.map((field) => (field ? compiledField(field) : null));
  if (renders.some((render) => render === undefined)) return { id, ok: false, missing: true };
  const outputs: (string | null)[] = [];
  for (const [index, render] of renders.entries()) {
    try {
      const output = render ? render(request.variables) : null;
      if (output !== null && output.length > RENDERED_LIMIT) {
        return { id, ok: false, field: index, error: 'The rendered text is larger than 4 MiB.' };
      }
      outputs.push(output);
    } catch (error) {
      return { id, ok: false, field: index, error: messageOf(error) };
    }
  }
  return { id, ok: true, outputs };
}

function messageOf(error: unknown): string {
  if (error instanceof RangeError) return 'The template nests or repeats too deeply to render.';
  return error instanceof Error ? error.message : String(error);
}

parentPort?.on('message', (request: WorkerRequest) => parentPort!.postMessage(handle(request)));
// Tasks are timed from here on: loading this code is not the task's time.
parentPort?.postMessage({ ready: true });
