import { parentPort } from 'node:worker_threads';
import { convertHtmlToText } from '../platform/mail/text-part';
import { messageOf, renderFields } from './field-render';
import { compileSource, CompiledSource } from './handlebars-source';
import { TemplateSyntaxError } from './template-syntax-error';
import { FieldRef, WorkerReply, WorkerRequest } from './template-worker-protocol';

// The inside of a template worker thread: compiles fields, renders messages and converts
// HTML to a text part, so that none of it ever runs on a thread that answers requests. The
// pool (template-pool.ts) bounds each task's time and the thread's memory; here, the compiled
// fields are kept, least recently used first out, and a rendered field larger than 4 MiB is
// an error (renderFields).

/** Source characters kept compiled (a compiled field weighs many times its source). */
const CACHE_CHARS = 4 * 1024 * 1024;

const compiled = new Map<string, { field: CompiledSource; chars: number }>();
let cachedChars = 0;

function compiledField(field: FieldRef): CompiledSource | undefined {
  const hit = compiled.get(field.key);
  if (hit) {
    compiled.delete(field.key);
    compiled.set(field.key, hit);
    return hit.field;
  }
  if (field.source === undefined) return undefined;
  const render = compileSource(field.source, field.escapeHtml);
  compiled.set(field.key, { field: render, chars: field.source.length });
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
      const { loops } = compiledField(request.field)!;
      return { id, ok: true, outputs: [], loops };
    } catch (error) {
      const position = error instanceof TemplateSyntaxError ? error.position : undefined;
      return { id, ok: false, error: messageOf(error), ...position };
    }
  }
  const renders = request.fields.map((field) => (field ? compiledField(field) : null));
  if (renders.some((render) => render === undefined)) return { id, ok: false, missing: true };
  return {
    id,
    ...renderFields(
      renders.map((field) => field?.render ?? null),
      request.variables,
    ),
  };
}

parentPort?.on('message', (request: WorkerRequest) => parentPort!.postMessage(handle(request)));
// Tasks are timed from here on: loading this code is not the task's time.
parentPort?.postMessage({ ready: true });
