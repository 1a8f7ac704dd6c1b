import type { Queryable } from "@mp/db";
import { Gauge, type Registry } from "prom-client";

/** A gauge counting a table's rows per value of one column: `<name>{<column>}`. */
export interface RowsPerValueGauge<Label extends string> {
  name: string;
  help: string;
  table: string;
  /** The column counted by, and the series' label. */
  column: Label;
  /** Every value the column may hold: each has a series, 0 included, so an alert on a rate never sees gaps. */
  values: readonly string[];
}

/**
 * Registers the gauge once per registry; it reads its counts at every scrape, so any process serving
 * /metrics shows what every other process wrote. `table` and `column` are the caller's constants.
 */
export function registerRowsPerValueGauge<Label extends string>(
  registry: Registry,
  db: Queryable,
  gauge: RowsPerValueGauge<Label>,
): void {
  if (registry.getSingleMetric(gauge.name)) return;
  const { table, column, values } = gauge;
  new Gauge<Label>({
    name: gauge.name,
    help: gauge.help,
    labelNames: [column],
    registers: [registry],
    async collect() {
      const { rows } = await db.query<{ value: string; count: string }>(
        `SELECT ${column} AS value, count(*) AS count FROM ${table} GROUP BY ${column}`,
      );
      const counts = new Map(rows.map((r) => [r.value, Number(r.count)]));
      for (const value of values) this.set({ [column]: value } as Record<Label, string>, counts.get(value) ?? 0);
    },
  });
}
