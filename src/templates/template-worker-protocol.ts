/** Messages between the request threads and the template workers (template-worker.ts). */

/** One template field, named by a hash of its source so a worker can keep it compiled. */
export interface FieldRef {
  key: string;
  escapeHtml: boolean;
  /** Sent only when the worker does not have the field compiled (yet, or any more). */
  source?: string;
}

export type WorkerTask =
  | { kind: 'compile'; field: Required<FieldRef> }
  | {
      kind: 'render';
      /** Subject, html, text; null where the message has none. */
      fields: (FieldRef | null)[];
      variables: Record<string, unknown>;
    }
  /** The text part of an HTML-only message (html-to-text). */
  | { kind: 'text'; html: string };

export type WorkerRequest = WorkerTask & { id: number };

export type WorkerReply =
  | {
      id: number;
      ok: true;
      outputs: (string | null)[];
      /** A compiled field: whether it may render part of itself repeatedly (CompiledSource). */
      loops?: boolean;
    }
  | { id: number; ok: false; missing: true }
  | {
      id: number;
      ok: false;
      missing?: false;
      error: string;
      /** Which of the render's fields failed. */
      field?: number;
      /** Where a field that does not compile goes wrong (TemplateSyntaxError's position). */
      line?: number;
      column?: number;
    };
