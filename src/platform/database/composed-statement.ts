import { createHash } from 'node:crypto';

/**
 * One SQL statement assembled from parts that several modules own: each module writes the
 * common table expression over its own tables, reading what it needs from a relation an
 * earlier part named, and the statement runs them all in one round trip. A single statement
 * is atomic on its own, so a hot write needs neither BEGIN nor COMMIT round trips, and
 * every table still has exactly one module that writes SQL against it.
 *
 * Parts add their values through `param`, which answers the placeholder to write in the text.
 *
 * The statement is prepared under a name derived from its text: a connection parses and plans
 * each shape once (a hot statement of a dozen CTEs cost PostgreSQL more to plan than to run),
 * and only the values travel afterwards.
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

  /** The statement, ending in `select`, its values and its prepared statement's name. */
  build(select: string): { name: string; text: string; values: unknown[] } {
    const text = this.ctes.length > 0 ? `WITH ${this.ctes.join(',\n')}\n${select}` : select;
    const name = `composed_${createHash('sha1').update(text).digest('base64url')}`;
    return { name, text, values: this.values };
  }
}
