/**
 * Spreadsheets run a cell that starts with `=`, `+`, `-` or `@` as a formula (tab and
 * carriage return are stripped first by some, so they count too): a subscriber who calls
 * themselves `=HYPERLINK(...)` would otherwise run code in whoever opens the export. Such a
 * cell is written with a leading `'`, which spreadsheets take as "text" and do not show.
 *
 * Cells that already start with one or more `'` before such a character get one more, so
 * that restoreCell can always remove exactly the one that was added: the mapping is
 * reversible, and an import reads an export back unchanged.
 */
const FORMULA_START = /^'*[=+\-@\t\r]/;

export function neutralizeCell(cell: string): string {
  return FORMULA_START.test(cell) ? `'${cell}` : cell;
}

/** The cell as it was before neutralizeCell (a cell it would not have changed is kept). */
export function restoreCell(cell: string): string {
  return cell.startsWith("'") && FORMULA_START.test(cell.slice(1)) ? cell.slice(1) : cell;
}
