/**
 * The SET list of an `ON CONFLICT … DO UPDATE` for a counter row: each column gets the new
 * row's amount added to what it holds (`c = table.c + EXCLUDED.c`), so concurrent writers
 * add up instead of overwriting each other. `table` and `columns` are code's own names.
 */
export function addingUp(table: string, columns: readonly string[]): string {
  return columns.map((c) => `${c} = ${table}.${c} + EXCLUDED.${c}`).join(',\n    ');
}
