import type { ComponentChildren, JSX } from "preact";
import { Empty } from "./Loading.tsx";

/** One column: its header, its cell for a row; `rowHeader` makes the cell the row's <th scope="row">. */
export interface Column<T> {
  header: string;
  cell: (row: T) => ComponentChildren;
  /** Extra classes of the cell (`mono` for figures). */
  class?: string | ((row: T) => string | undefined);
  rowHeader?: boolean;
}

interface TableProps<T> {
  caption: string;
  showCaption?: boolean;
  columns: ReadonlyArray<Column<T>>;
  rows: readonly T[];
  empty?: { title: string; children?: ComponentChildren };
  actions?: (row: T) => ComponentChildren;
  rowAttributes?: ((row: T) => { class?: string | undefined } & Record<`data-${string}`, string>) | undefined;
}

/**
 * How a row is told apart: by its `id` unless `rowKey` says otherwise (rows without an `id` must say);
 * `idAttribute` also puts that id on the row (`data-drain="…"`), where tests and links look a row up.
 */
interface RowsWithIds<T> {
  rowKey?: (row: T) => string;
  idAttribute?: `data-${string}` | undefined;
}

/**
 * A table's fixed parts, declared once beside its columns: everything but its rows (a page then
 * writes `<Table {...SPEC} rows={rows} />`). Rows without an `id` must say their `rowKey`.
 */
export type TableSpec<T> = Omit<TableProps<T>, "rows"> &
  (T extends { id: string } ? RowsWithIds<T> : RowsWithIds<T> & { rowKey: (row: T) => string });

/**
 * Every list of the dashboard: a table with a caption (hidden unless `showCaption`), one header per
 * column, one row per item and, when `actions` is given, a last column of buttons with a hidden
 * "Actions" header. On a small screen the rows stack, each cell labelled with its column (CSS, from
 * `data-label`). No rows: the `empty` box instead of an empty table.
 */
export function Table<T extends { id: string }>(props: TableProps<T> & RowsWithIds<T>): JSX.Element;
export function Table<T>(props: TableProps<T> & { rowKey: (row: T) => string }): JSX.Element;
export function Table<T>(props: TableProps<T> & RowsWithIds<T>): JSX.Element {
  const idOf = (row: T) => (row as { id: string }).id;
  const keyOf = props.rowKey ?? idOf;
  const idAttribute = props.idAttribute;
  if (props.rows.length === 0 && props.empty) return <Empty title={props.empty.title}>{props.empty.children}</Empty>;
  return (
    <table class="table">
      <caption class={props.showCaption ? undefined : "visually-hidden"}>{props.caption}</caption>
      <thead>
        <tr>
          {props.columns.map((column) => (
            <th key={column.header} scope="col">
              {column.header}
            </th>
          ))}
          {props.actions && (
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          )}
        </tr>
      </thead>
      <tbody>
        {props.rows.map((row) => (
          <tr key={keyOf(row)} {...(idAttribute && { [idAttribute]: idOf(row) })} {...props.rowAttributes?.(row)}>
            {props.columns.map((column) => {
              const className = typeof column.class === "function" ? column.class(row) : column.class;
              return column.rowHeader ? (
                <th key={column.header} scope="row" data-label={column.header} class={className}>
                  {column.cell(row)}
                </th>
              ) : (
                <td key={column.header} data-label={column.header} class={className}>
                  {column.cell(row)}
                </td>
              );
            })}
            {props.actions && <td class="actions">{props.actions(row)}</td>}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
