import { Amount } from "../../components/Amount.tsx";
import { CopyButton } from "../../components/CopyButton.tsx";
import { formatDateTime } from "../../components/format.ts";
import { RefreshablePage } from "../../components/RefreshablePage.tsx";
import { Table, type TableSpec } from "../../components/Table.tsx";
import { operatorApi, type PendingSend, type TreasuryBalance } from "../../operator-api.ts";

/** The exact figure behind a rounded one: every digit, and the smallest units, on demand. */
function Exact(props: { amount: string | null; raw: string; asset: string }) {
  return (
    <details class="exact">
      <summary>Exact</summary>
      {props.amount !== null && (
        <div class="mono">
          {props.amount} {props.asset}
        </div>
      )}
      <div class="mono">{props.raw} (smallest units)</div>
    </details>
  );
}

const BALANCES: TableSpec<TreasuryBalance> = {
  caption: "Treasury balances per chain and asset",
  rowKey: (b) => `${b.chain}:${b.asset}`,
  empty: { title: "No balances read yet.", children: "The signer (payments serve --role signer) records them." },
  columns: [
    { header: "Chain", cell: (b) => b.chain },
    { header: "Asset", cell: (b) => b.asset },
    {
      header: "Amount",
      cell: (b) => (
        <>
          <Amount value={b.amount} asset={b.asset} />
          <Exact amount={b.amount} raw={b.amount_raw} asset={b.asset} />
        </>
      ),
    },
    { header: "Read", cell: (b) => formatDateTime(b.observed_at) },
  ],
};

const PENDING_SENDS: TableSpec<PendingSend> = {
  caption: "Sends not yet confirmed or failed, oldest first",
  empty: { title: "No pending sends." },
  columns: [
    {
      header: "Amount",
      cell: (s) => (
        <>
          {s.amount === null ? (
            <span class="mono">
              {s.amount_raw} (smallest units of {s.asset})
            </span>
          ) : (
            <Amount value={s.amount} asset={s.asset} />
          )}{" "}
          on {s.chain}
          <div class="hint">{s.purpose}</div>
          {s.amount !== null && <Exact amount={s.amount} raw={s.amount_raw} asset={s.asset} />}
        </>
      ),
    },
    {
      header: "To",
      cell: (s) => (
        <>
          <code class="id break">{s.to}</code> <CopyButton value={s.to} what={`${s.chain} address`} />
        </>
      ),
    },
    { header: "State", cell: (s) => s.state },
    { header: "Why it waits", cell: (s) => s.reason ?? "—" },
    { header: "Requested", cell: (s) => formatDateTime(s.created_at) },
  ],
};

/** The treasury's balances (as the signer last read them) and its sends not yet confirmed or failed. */
export function Treasury() {
  return (
    <RefreshablePage title="Treasury" what="the treasury" load={operatorApi.treasury}>
      {({ balances, pending_sends: sends }) => (
        <>
          <h2>Balances</h2>
          <Table {...BALANCES} rows={balances} />
          <h2>Pending sends</h2>
          <Table {...PENDING_SENDS} rows={sends} />
        </>
      )}
    </RefreshablePage>
  );
}
