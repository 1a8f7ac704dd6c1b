import { formatDateTime } from "./format.ts";
import { StatusText } from "./StatusText.tsx";
import type { Column } from "./Table.tsx";

/** The column every list that has a creation time shows it in, formatted as the dashboard formats times. */
export function createdColumn<T extends { created_at: string }>(): Column<T> {
  return { header: "Created", cell: (row) => formatDateTime(row.created_at) };
}

/** A row's API status as StatusText shows it, under `header` ("Status" unless the page calls it otherwise). */
export function statusColumn<T extends { status: string }>(header = "Status"): Column<T> {
  return { header, cell: (row) => <StatusText status={row.status} /> };
}
