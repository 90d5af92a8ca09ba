/**
 * One SQL statement assembled from parts that several modules own: each module writes the
 * common table expression over its own tables, reading what it needs from a relation an
 * earlier part named, and the statement runs them all in one round trip. A single statement
 * is atomic on its own, so a hot write needs neither BEGIN nor COMMIT round trips, and
 * every table still has exactly one module that writes SQL against it.
 *
 * Parts add their values through `param`, which answers the placeholder to write in the text.
 */
export class ComposedStatement {
  private readonly ctes: string[] = [];
  private readonly values: unknown[] = [];

  /** Adds a value; returns its placeholder (`$n`). */
  param(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }

  /** Adds a common table expression: `name AS (…)`, in the order the parts depend on. */
  with(cte: string): this {
    this.ctes.push(cte);
    return this;
  }

  /** The statement, ending in `select`, and its values. */
  build(select: string): { text: string; values: unknown[] } {
    const text = this.ctes.length > 0 ? `WITH ${this.ctes.join(',\n')}\n${select}` : select;
    return { text, values: this.values };
  }
}
