import { formatDateTime } from "../../components/format.ts";
import { RefreshablePage } from "../../components/RefreshablePage.tsx";
import { Table, type TableSpec } from "../../components/Table.tsx";
import { operatorApi, type SanctionsHeldDeposit, type SanctionsMatchRow } from "../../operator-api.ts";

const HELD_DEPOSITS: TableSpec<SanctionsHeldDeposit> = {
  caption: "Deposits held for a sanctioned sender, awaiting an operator's decision",
  rowKey: (d) => d.deposit_id,
  empty: { title: "No deposit is held for a sanctions match." },
  columns: [
    {
      header: "Deposit",
      cell: (d) => (
        <>
          <code>{d.deposit_id}</code>
          <div class="hint mono">merchant {d.merchant_id}</div>
        </>
      ),
      rowHeader: true,
    },
    { header: "Amount", cell: (d) => `${d.amount} ${d.asset} on ${d.chain}`, class: "mono" },
    { header: "Net USD", cell: (d) => d.net_amount_usd, class: "mono" },
    { header: "From", cell: (d) => <code>{d.from_address ?? "—"}</code> },
    { header: "Confirmed", cell: (d) => formatDateTime(d.confirmed_at) },
  ],
};

const MATCHES: TableSpec<SanctionsMatchRow> = {
  caption: "The latest sanctions list matches: deposit senders held, destinations refused",
  empty: { title: "No sanctions match recorded." },
  columns: [
    { header: "When", cell: (m) => formatDateTime(m.created_at) },
    { header: "Where", cell: (m) => <code>{m.context}</code> },
    { header: "Address", cell: (m) => <code>{m.address}</code> },
    { header: "Chain", cell: (m) => m.chain ?? "—" },
    { header: "List", cell: (m) => m.list },
    { header: "Reference", cell: (m) => <code>{m.reference ?? "—"}</code> },
  ],
};

/**
 * Sanctions screening (docs/sanctions.md): deposits held because their sender is listed (an operator
 * releases or returns each with `payments deposits release|return`) and every match recorded.
 */
export function Sanctions() {
  return (
    <RefreshablePage title="Sanctions" what="sanctions matches" load={operatorApi.sanctions}>
      {({ matches, held_deposits }) => (
        <>
          <Table {...HELD_DEPOSITS} rows={held_deposits} />
          <h2>Matches</h2>
          <Table {...MATCHES} rows={matches} />
        </>
      )}
    </RefreshablePage>
  );
}
