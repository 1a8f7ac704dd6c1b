import { useEffect, useState } from "preact/hooks";
import { ApiError, type User } from "../api.ts";
import { DepositTable } from "../components/DepositTable.tsx";
import { SelectField } from "../components/Fields.tsx";
import { LoadFailed } from "../components/LoadFailed.tsx";
import { Notice } from "../components/Notice.tsx";
import { SandboxPanel } from "../components/SandboxPanel.tsx";
import { type DepositPage, merchantApi } from "../merchant-api.ts";

/** How often the open page asks again: confirmations move with each block. */
export const POLL_MS = 2_000;
const STATUSES = ["PENDING", "CONFIRMED", "REVERSED"];
const CHAINS = ["ETHEREUM", "BASE", "ARBITRUM", "OPTIMISM", "POLYGON", "BSC", "CELO", "SOLANA", "BITCOIN", "TRON"];

/**
 * Every deposit of the merchant, newest first, in keyset pages from the server (100,000 deposits
 * stay as fast as 10), filtered by status and chain, refreshed every POLL_MS without a reload: a new
 * deposit appears at the top of the first page and its confirmations count up to CONFIRMED.
 */
export function Deposits(props: { user: User; merchantId: string }) {
  const [status, setStatus] = useState("");
  const [chain, setChain] = useState("");
  // The cursors of the pages before this one: the first page has none.
  const [cursors, setCursors] = useState<string[]>([]);
  const [page, setPage] = useState<DepositPage | undefined>();
  const [error, setError] = useState<ApiError | undefined>();
  const [round, setRound] = useState(0);
  const after = cursors.at(-1);

  useEffect(() => {
    let live = true;
    const load = () =>
      merchantApi.deposits(props.merchantId, { status, chain, ...(after ? { after } : {}) }).then(
        (value) => {
          if (!live) return;
          setPage(value);
          setError(undefined);
        },
        (e: unknown) => live && setError(e instanceof ApiError ? e : new ApiError(0, "unknown", String(e))),
      );
    void load();
    const timer = setInterval(load, POLL_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [props.merchantId, status, chain, after, round]);

  if (error?.status === 404) return <LoadFailed error={error} retry={() => setRound((n) => n + 1)} />;
  const filter = (set: (value: string) => void) => (value: string) => {
    set(value);
    setCursors([]);
    setPage(undefined);
  };
  return (
    <section aria-labelledby="deposits-title">
      <div class="page-head">
        <h1 id="deposits-title">Deposits</h1>
        <span class="muted live">Live: refreshed every {POLL_MS / 1000} s</span>
      </div>
      <SandboxPanel user={props.user} merchantId={props.merchantId} onSent={() => setRound((n) => n + 1)} />
      <form class="inline-form filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter deposits">
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
      </form>
      {error && <Notice kind="error">{error.message} (retrying)</Notice>}
      {!page && !error && <p class="muted">Loading deposits…</p>}
      {page && page.items.length === 0 && (
        <div class="empty">
          <p>{status || chain ? "No deposits match these filters." : "No deposits yet."}</p>
          <p class="muted">This page updates by itself: a deposit shows here as soon as a chain sees it.</p>
        </div>
      )}
      {page && page.items.length > 0 && (
        <DepositTable deposits={page.items} caption={`Deposits, page ${cursors.length + 1}, newest first`} />
      )}
      <nav class="pager" aria-label="Deposit pages">
        <button
          type="button"
          class="button secondary"
          disabled={cursors.length === 0}
          onClick={() => setCursors(cursors.slice(0, -1))}
        >
          Newer
        </button>
        <span>Page {cursors.length + 1}</span>
        <button
          type="button"
          class="button secondary"
          disabled={!page?.next}
          onClick={() => page?.next && setCursors([...cursors, page.next])}
        >
          Older
        </button>
      </nav>
    </section>
  );
}
