import { RenderFn } from './handlebars-source';

/** A rendered field larger than this is an error (a loop over too much data, most likely). */
const RENDERED_LIMIT = 4 * 1024 * 1024;

export type FieldsRendered =
  | { ok: true; outputs: (string | null)[] }
  /** `field`: the index of the field that failed (the first when unsaid). */
  | { ok: false; field?: number; error: string };

/**
 * Renders the fields of one message (null where the message has none), stopping at the first
 * that throws or renders more than 4 MiB: the same on a template worker and on the calling
 * thread, so a message fails with the same words wherever it was rendered.
 */
export function renderFields(
  renders: (RenderFn | null)[],
  variables: Record<string, unknown>,
): FieldsRendered {
  const outputs: (string | null)[] = [];
  for (const [index, render] of renders.entries()) {
    try {
      const output = render ? render(variables) : null;
      if (output !== null && output.length > RENDERED_LIMIT) {
        return { ok: false, field: index, error: 'The rendered text is larger than 4 MiB.' };
      }
      outputs.push(output);
    } catch (error) {
      return { ok: false, field: index, error: messageOf(error) };
    }
  }
  return { ok: true, outputs };
}

export function messageOf(error: unknown): string {
  if (error instanceof RangeError) return 'The template nests or repeats too deeply to render.';
  return error instanceof Error ? error.message : String(error);
}
