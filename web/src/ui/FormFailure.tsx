import type { ApiFailure } from '../api/client';
import { ErrorNotice } from './Notice';

/**
 * What a failed submission says beyond the form's fields, in plain words: the server's
 * message when it named no field (a conflict, a rate limit, a lost connection), else each
 * problem it found at a field the form does not show, labelled. Problems at the form's own
 * `fields` stand next to them (`failure.fieldMessage`), so nothing the server said is lost.
 */
export function FormFailure({
  failure,
  fields,
  label,
}: {
  failure?: ApiFailure;
  /** The API fields this form shows, each with its own error. */
  fields: string[];
  label?: (path: string) => string;
}) {
  const sentences = failure?.explain({ except: fields, label }) ?? [];
  if (sentences.length === 0) return null;
  return (
    <ErrorNotice>
      {sentences.length === 1 ? (
        sentences[0]
      ) : (
        <ul className="notice-list">
          {sentences.map((sentence, index) => (
            <li key={index}>{sentence}</li>
          ))}
        </ul>
      )}
    </ErrorNotice>
  );
}
