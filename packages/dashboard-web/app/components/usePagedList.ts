import { useState } from "preact/hooks";
import type { Page } from "../merchant-api.ts";
import { useLoad } from "./useLoad.ts";

/** One numbered page of a merchant's /v1 list (customers, wallets, transfers), reloaded when the page changes. */
export function usePagedList<T>(load: (merchantId: string, page: number) => Promise<Page<T>>, merchantId: string) {
  const [page, setPage] = useState(1);
  const [list, reload] = useLoad(() => load(merchantId, page), `${merchantId}:${page}`);
  return { list, reload, page, setPage };
}
