/**
 * The character offset of a line and column (both from 1, as the server reports a template
 * error) in a control's text, clamped to the text: a line past the end is its end.
 */
export function offsetOf(text: string, line: number, column: number): number {
  let start = 0;
  for (let current = 1; current < line; current++) {
    const next = text.indexOf('\n', start);
    if (next === -1) return text.length;
    start = next + 1;
  }
  const end = text.indexOf('\n', start);
  const lineEnd = end === -1 ? text.length : end;
  return Math.min(start + Math.max(column - 1, 0), lineEnd);
}
