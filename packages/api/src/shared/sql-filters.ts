/**
 * Builds a parameterised WHERE clause from optional filters: values always travel as parameters,
 * never inside the SQL text.
 */
export class SqlFilters {
  readonly params: unknown[] = [];
  private readonly clauses: string[] = [];

  /** Adds `clause` with `$?` replaced by the next parameter number, when `value` is defined. */
  add(clause: string, value: unknown): this {
    if (value === undefined) return this;
    this.params.push(value);
    this.clauses.push(clause.replaceAll("$?", `$${this.params.length}`));
    return this;
  }

  /** Adds `column = value` for each of `columns` set in `filters` (filters named as their columns). */
  equal<F extends object>(filters: F, ...columns: Array<keyof F & string>): this {
    for (const column of columns) this.add(`${column} = $?`, filters[column]);
    return this;
  }

  /** Adds the `created_from` / `created_to` bounds (both inclusive) that are set. */
  createdWithin(filters: { created_from?: string | undefined; created_to?: string | undefined }): this {
    return this.add("created_at >= $?", filters.created_from).add("created_at <= $?", filters.created_to);
  }

  /** Adds a clause whose placeholders were already taken with `param`. */
  addClause(clause: string): this {
    this.clauses.push(clause);
    return this;
  }

  /** A parameter placeholder for use outside `add` (e.g. LIMIT/OFFSET). */
  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  get where(): string {
    return this.clauses.length > 0 ? `WHERE ${this.clauses.join(" AND ")}` : "";
  }
}
