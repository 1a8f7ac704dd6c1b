import { useState } from "preact/hooks";
import { useLoad } from "./useLoad.ts";

/**
 * One numbered page of a merchant's list under the page's filters (`query`): reloaded when the page
 * or the query changes. `filter(setX)` is filter X's setter that also goes back to the first page,
 * so a narrower list never opens on a page past its end.
 */
export function useFilteredList<Q, T>(
  load: (merchantId: string, page: number, query: Q) => Promise<T>,
  merchantId: string,
  query: Q,
) {
  const [page, setPage] = useState(1);
  const [list, reload] = useLoad(() => load(merchantId, page, query), `${merchantId}:${page}:${JSON.stringify(query)}`);
  const filter =
    <V>(set: (value: V) => void) =>
    (value: V) => {
      set(value);
      setPage(1);
    };
  return { list, reload, page, setPage, filter };
}
