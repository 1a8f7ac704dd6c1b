import { iso } from "@mp/core";
import type { ResourceTable } from "./list-page.ts";

/** A resource as its row is read: the same fields, the timestamps `Timestamps` as the Dates the driver returns. */
export type RowOf<Resource, Timestamps extends keyof Resource> = Omit<Resource, Timestamps> & {
  [K in Timestamps]: Date | Extract<Resource[K], null>;
};

/** What `resourceOfColumns` makes of a row: its Dates as ISO strings. */
type Answered<Row> = {
  [K in keyof Row]: Row[K] extends Date ? string : Row[K] extends Date | null ? string | null : Row[K];
};

function nameOf(column: string): string {
  return /\sAS\s+(\w+)$/i.exec(column)?.[1] ?? column.replace(/^\w+\./, "");
}

/**
 * The mapping of a row to its resource, for tables whose `columns` are named as the resource's
 * fields, in its order (the JSON answer keeps it): those fields only (a RETURNING may add
 * merchant_id and the like for the caller), the timestamps as ISO strings, the rest as read.
 * An alias prefix (`w.id`) is not part of the name; `expression AS name` is named `name`.
 */
export function resourceOfColumns<Row extends object>(columns: string): (row: Row) => Answered<Row> {
  const names = columns.split(",").map((column) => nameOf(column.trim()));
  // Every resource is a copy of this one before its values are set: made with all its fields at once
  // rather than grown a field at a time (each growth past the object's slots copies its property store).
  const shape: Record<string, unknown> = Object.fromEntries(names.map((name) => [name, null]));
  return (row) => {
    const values = row as Record<string, unknown>;
    const resource: Record<string, unknown> = { ...shape };
    for (const name of names) {
      const value = values[name];
      resource[name] = value instanceof Date ? iso(value) : value;
    }
    return resource as Answered<Row>;
  };
}

/** The table of a resource whose columns are named as its fields, and its rows' mapping (`resourceOfColumns`). */
export function resourceTable<Row extends object>(
  table: Omit<ResourceTable<Row, unknown>, "toItems">,
): ResourceTable<Row, Answered<Row>> & { toResource: (row: Row) => Answered<Row> } {
  const toResource = resourceOfColumns<Row>(table.columns);
  return { ...table, toResource, toItems: (rows) => rows.map(toResource) };
}
