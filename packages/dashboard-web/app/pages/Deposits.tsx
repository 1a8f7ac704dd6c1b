import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, type Deposit, download, type User } from "../api.ts";
import { CursorPager } from "../components/CursorPager.tsx";
import { DepositTable } from "../components/DepositTable.tsx";
import { searchOf } from "../components/deposit-search.ts";
import { DayRangeFields, SelectField, TextField } from "../components/Fields.tsx";
import { FilterForm } from "../components/FilterForm.tsx";
import { dayRange, errorText } from "../components/format.ts";
import { LoadFailed } from "../components/LoadFailed.tsx";
import { Empty, Skeleton } from "../components/Loading.tsx";
import { formatMoney } from "../components/money.ts";
import { Notice } from "../components/Notice.tsx";
import { SandboxPanel } from "../components/SandboxPanel.tsx";
import { type DepositPage, type DepositQuery, merchantApi } from "../merchant-api.ts";

/** How often the open page asks again: confirmations move with each block. */
export const POLL_MS = 2_000;
const STATUSES = ["PENDING", "CONFIRMED", "REVERSED"];
const CHAINS = ["ETHEREUM", "BASE", "ARBITRUM", "OPTIMISM", "POLYGON", "BSC", "CELO", "SOLANA", "BITCOIN", "TRON"];

/** What the live region says of deposits that just arrived. */
function arrivals(fresh: Deposit[]): string {
  const [first] = fresh;
  if (fresh.length > 1 || !first) return `${fresh.length} new deposits.`;
  return `New deposit: ${formatMoney(first.amount, first.asset)} on ${first.chain}.`;
}

/**
 * Deposits seen on the first page of one filter, and what to announce when new ones show up there;
 * a new filter starts over without announcing what was already there.
 */
export function useArrivals(filterKey: string): { arrived: string; see: (items: Deposit[]) => void } {
  const seen = useRef<{ key: string; ids: Set<string> } | undefined>(undefined);
  const [arrived, setArrived] = useState("");
  const see = (items: Deposit[]) => {
    const known = seen.current?.key === filterKey ? seen.current.ids : undefined;
    const fresh = known ? items.filter((deposit) => !known.has(deposit.id)) : [];
    if (fresh.length > 0) setArrived(arrivals(fresh));
    seen.current = { key: filterKey, ids: new Set([...(known ?? []), ...items.map((deposit) => deposit.id)]) };
  };
  return { arrived, see };
}

/**
 * Every deposit of the merchant, newest first, in keyset pages from the server (100,000 deposits
 * stay as fast as 10), filtered by status, chain, day range and a search (hash, address or amount),
 * downloadable as CSV, refreshed every POLL_MS without a reload: a new
 * deposit appears at the top of the first page (a live region announces it) and its confirmations
 * count up to CONFIRMED. An ended session stops it: the app goes back to sign-in (api.ts).
 */
export function Deposits(props: { user: User; merchantId: string }) {
  const [status, setStatus] = useState("");
  const [chain, setChain] = useState("");
  const [search, setSearch] = useState("");
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const [csvError, setCsvError] = useState<string | undefined>();
  const query: DepositQuery = { status, chain, ...searchOf(search), ...dayRange(from, to) };
  const queryKey = JSON.stringify(query);
  // The cursors of the pages before this one: the first page has none.
  const [cursors, setCursors] = useState<string[]>([]);
  const [page, setPage] = useState<DepositPage | undefined>();
  const [error, setError] = useState<ApiError | undefined>();
  const [round, setRound] = useState(0);
  const after = cursors.at(-1);
  const { arrived, see } = useArrivals(`${props.merchantId}:${queryKey}`);

  useEffect(() => {
    let live = true;
    const load = () =>
      merchantApi.deposits(props.merchantId, { ...query, ...(after ? { after } : {}) }).then(
        (value) => {
          if (!live) return;
          setPage(value);
          setError(undefined);
          if (!after) see(value.items);
        },
        (e: unknown) => live && setError(e instanceof ApiError ? e : new ApiError(0, "unknown", String(e))),
      );
    void load();
    const timer = setInterval(load, POLL_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [props.merchantId, queryKey, after, round]);

  if (error?.status === 404) return <LoadFailed error={error} retry={() => setRound((n) => n + 1)} />;
  const filter = (set: (value: string) => void) => (value: string) => {
    set(value);
    setCursors([]);
    setPage(undefined);
  };
  const downloadCsv = async () => {
    setCsvError(undefined);
    const params = new URLSearchParams(Object.entries(query).filter(([, value]) => value) as Array<[string, string]>);
    try {
      await download(`/merchants/${encodeURIComponent(props.merchantId)}/deposits.csv?${params}`, "deposits.csv");
    } catch (e) {
      setCsvError(`The CSV could not be downloaded: ${errorText(e)}`);
    }
  };
  const filtered = Boolean(status || chain || search.trim() || from || to);
  return (
    <section aria-labelledby="deposits-title">
      <div class="page-head">
        <h1 id="deposits-title">Deposits</h1>
        <span class="muted live">Live: refreshed every {POLL_MS / 1000} s</span>
      </div>
      <SandboxPanel user={props.user} merchantId={props.merchantId} onSent={() => setRound((n) => n + 1)} />
      <FilterForm label="Filter deposits">
        <SelectField
          id="deposit-status"
          label="Status"
          value={status}
          options={STATUSES}
          empty="All"
          onChange={filter(setStatus)}
        />
        <SelectField
          id="deposit-chain"
          label="Chain"
          value={chain}
          options={CHAINS}
          empty="All"
          onChange={filter(setChain)}
        />
        <TextField
          id="deposit-search"
          label="Transaction hash, address or amount"
          type="search"
          grow
          mono
          optional
          value={search}
          onInput={filter(setSearch)}
        />
        <DayRangeFields id="deposit" from={from} to={to} onFrom={filter(setFrom)} onTo={filter(setTo)} />
        <button type="button" class="button secondary" onClick={downloadCsv}>
          Download CSV
        </button>
      </FilterForm>
      {csvError && <Notice kind="error">{csvError}</Notice>}
      <p class="visually-hidden" role="status" aria-live="polite">
        {arrived}
      </p>
      {error && <Notice kind="error">{error.message} (retrying)</Notice>}
      {!page && !error && <Skeleton what="deposits" />}
      {page && page.items.length === 0 && (
        <Empty title={filtered ? "No deposits match these filters." : "No deposits yet."}>
          This page updates by itself: a deposit shows here as soon as a chain sees it.
        </Empty>
      )}
      {page && page.items.length > 0 && (
        <DepositTable deposits={page.items} caption={`Deposits, page ${cursors.length + 1}, newest first`} />
      )}
      <CursorPager
        label="Deposit"
        atNewest={cursors.length === 0}
        next={page?.next}
        onNewer={() => setCursors(cursors.slice(0, -1))}
        onOlder={(next) => setCursors([...cursors, next])}
      >
        <span>Page {cursors.length + 1}</span>
      </CursorPager>
    </section>
  );
}
