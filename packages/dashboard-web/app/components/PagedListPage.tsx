import type { ComponentChildren } from "preact";
import type { Page } from "../merchant-api.ts";
import { LoadFailed } from "./LoadFailed.tsx";
import { Skeleton } from "./Loading.tsx";
import { PagedTable } from "./PagedTable.tsx";
import type { Column } from "./Table.tsx";
import { usePagedList } from "./usePagedList.ts";

/**
 * A merchant page listing one /v1 resource (customers, wallets, transfers), newest first: its
 * heading at once (then `head`, a create form, given the list's reload), a skeleton until the page of
 * items arrives, then the table and the pager.
 */
export function PagedListPage<T extends { id: string }>(props: {
  merchantId: string;
  /** The heading, and the plural the page speaks of ("Customers"). */
  title: string;
  /** One of them, for the pager ("Liquidation address"); by default the title less its last letter. */
  one?: string;
  load: (merchantId: string, page: number) => Promise<Page<T>>;
  columns: ReadonlyArray<Column<T>>;
  empty: { title: string; children: ComponentChildren };
  /** The data attribute each row carries its id in (see Table). */
  idAttribute?: `data-${string}`;
  head?: (reload: () => void) => ComponentChildren;
}) {
  const { list, reload, page, setPage } = usePagedList(props.load, props.merchantId);
  const what = props.title.toLowerCase();
  const titleId = `${what.replaceAll(" ", "-")}-title`;
  if (list.state === "error") return <LoadFailed error={list.error} retry={reload} />;
  return (
    <section aria-labelledby={titleId}>
      <h1 id={titleId}>{props.title}</h1>
      {props.head?.(reload)}
      {list.state === "loading" ? (
        <Skeleton what={what} />
      ) : (
        <PagedTable
          list={list.value}
          what={what}
          one={props.one ?? props.title.slice(0, -1)}
          page={page}
          onPage={setPage}
          columns={props.columns}
          idAttribute={props.idAttribute}
          empty={props.empty}
        />
      )}
    </section>
  );
}
