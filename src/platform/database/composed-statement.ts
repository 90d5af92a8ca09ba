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
 * and only the values travel afterwards. Unless `named` is false: a name lives on one server
 * connection, and a pooler that hands each transaction another one (PgBouncer before 1.21)
 * would run it where it was never prepared.
 */
/**
 * A relation that one part of a composed statement names, for later parts (of other
 * modules) to read: its name in the SQL and, as a type, the columns it offers. Parts return
 * and take Relation values rather than strings, so a part that reads a relation no part
 * names, or a column a relation does not offer, does not compile. A Relation<Offered> serves
 * wherever a Relation<Read> is asked for when Read is a subset of Offered.
 */
export interface Relation<Columns extends string> {
  readonly name: string;
  /** Type only: which columns a reader may use (contravariant, see above). */
  readonly columns?: (column: Columns) => void;
}

/** Declares the relation a part's CTE names, with the columns it offers. */
export function relation<Columns extends string>(name: string): Relation<Columns> {
  return { name };
}

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

  /** The statement, ending in `select`, its values and its prepared statement's name, if any. */
  build(
    select: string,
    { named = true }: { named?: boolean } = {},
  ): { name?: string; text: string; values: unknown[] } {
    const text = this.ctes.length > 0 ? `WITH ${this.ctes.join(',\n')}\n${select}` : select;
    if (!named) return { text, values: this.values };
    const name = `composed_${createHash('sha1').update(text).digest('base64url')}`;
    return { name, text, values: this.values };
  }
}
