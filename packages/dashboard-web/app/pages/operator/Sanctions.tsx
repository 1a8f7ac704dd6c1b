import { formatDateTime } from "../../components/format.ts";
import { RefreshablePage } from "../../components/RefreshablePage.tsx";
import { type Column, Table } from "../../components/Table.tsx";
import { operatorApi, type SanctionsHeldDeposit, type SanctionsMatchRow } from "../../operator-api.ts";

const HELD_COLUMNS: ReadonlyArray<Column<SanctionsHeldDeposit>> = [
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
];

const MATCH_COLUMNS: ReadonlyArray<Column<SanctionsMatchRow>> = [
  { header: "When", cell: (m) => formatDateTime(m.created_at) },
  { header: "Where", cell: (m) => <code>{m.context}</code> },
  { header: "Address", cell: (m) => <code>{m.address}</code> },
  { header: "Chain", cell: (m) => m.chain ?? "—" },
  { header: "List", cell: (m) => m.list },
  { header: "Reference", cell: (m) => <code>{m.reference ?? "—"}</code> },
];

/**
 * Sanctions screening (docs/sanctions.md): deposits held because their sender is listed (an operator
 * releases or returns each with `payments deposits release|return`) and every match recorded.
 */
export function Sanctions() {
  return (
    <RefreshablePage title="Sanctions" what="sanctions matches" load={operatorApi.sanctions}>
      {({ matches, held_deposits }) => (
        <>
          <Table
            caption="Deposits held for a sanctioned sender, awaiting an operator's decision"
            columns={HELD_COLUMNS}
            rows={held_deposits}
            rowKey={(d) => d.deposit_id}
            empty={{ title: "No deposit is held for a sanctions match." }}
          />
          <h2>Matches</h2>
          <Table
            caption="The latest sanctions list matches: deposit senders held, destinations refused"
            columns={MATCH_COLUMNS}
            rows={matches}
            empty={{ title: "No sanctions match recorded." }}
          />
        </>
      )}
    </RefreshablePage>
  );
}
