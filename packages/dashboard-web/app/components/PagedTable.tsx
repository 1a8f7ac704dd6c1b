import type { ComponentChildren } from "preact";
import type { Page } from "../merchant-api.ts";
import { Pager } from "./Pager.tsx";
import { type Column, Table } from "./Table.tsx";

/**
 * One numbered page of a /v1 list, newest first: the table of its items (captioned with the total)
 * and the pager below it. `what` is the plural the caption speaks of ("transfers"), `one` the pager's
 * label ("Transfer"). No items: `empty`, or, when the page's filters narrowed the list (`filtered`),
 * "No transfers match these filters.".
 */
export function PagedTable<T extends { id: string }>(props: {
  list: Page<T>;
  what: string;
  one: string;
  page: number;
  onPage: (page: number) => void;
  columns: ReadonlyArray<Column<T>>;
  empty: { title: string; children?: ComponentChildren };
  filtered?: boolean;
  /** The data attribute each row carries its id in (see Table). */
  idAttribute?: `data-${string}` | undefined;
}) {
  return (
    <>
      <Table
        caption={`${props.list.total} ${props.what}, newest first`}
        columns={props.columns}
        rows={props.list.items}
        idAttribute={props.idAttribute}
        empty={props.filtered ? { title: `No ${props.what} match these filters.` } : props.empty}
      />
      <Pager page={props.page} totalPages={props.list.total_pages} onPage={props.onPage} label={props.one} />
    </>
  );
}
